import { z } from '../openapi/zod.js';
import { ERROR_CODES } from '../../domain/errors.js';

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ description: 'Machine-readable code; clients must tolerate unknown codes.', example: 'validation_error' }),
      message: z.string(),
      request_id: z.string(),
      param: z.string().optional().openapi({ description: 'The parameter or JSON path of the body field that failed.' }),
      details: z
        .array(z.object({ param: z.string(), message: z.string() }))
        .optional()
        .openapi({ description: 'Every validation problem, when there are several.' }),
      reason: z.string().optional().openapi({ description: 'Code-specific reason, e.g. for invalid_promo_code.' }),
    }),
  })
  .openapi('Error', { description: `Error envelope. Codes: ${Object.keys(ERROR_CODES).join(', ')}.` });

export const Environment = z.enum(['live', 'sandbox']).openapi('Environment');

export const IsoTimestamp = z.string().openapi({ format: 'date-time', example: '2026-11-21T12:00:00.000Z' });

export function envelope<T extends z.ZodType>(data: T, pagination?: z.ZodType) {
  return pagination ? z.object({ data, pagination }) : z.object({ data });
}

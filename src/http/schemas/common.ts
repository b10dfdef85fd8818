import { z } from '../openapi/zod.js';
import { ENVIRONMENTS } from '../../domain/environment.js';
import { ERROR_CODES } from '../../domain/errors.js';

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({
        description: 'Machine-readable code; clients must tolerate unknown codes.',
        example: 'validation_error',
      }),
      message: z.string(),
      request_id: z.string(),
      param: z
        .string()
        .optional()
        .openapi({ description: 'The parameter or JSON path of the body field that failed.' }),
      details: z
        .array(z.object({ param: z.string(), message: z.string() }))
        .optional()
        .openapi({ description: 'Every validation problem, when there are several.' }),
      reason: z.string().optional().openapi({ description: 'Code-specific reason, e.g. for invalid_promo_code.' }),
    }),
  })
  .openapi('Error', { description: `Error envelope. Codes: ${Object.keys(ERROR_CODES).join(', ')}.` });

export const Environment = z.enum(ENVIRONMENTS).openapi('Environment');

export const IsoTimestamp = z.string().openapi({ format: 'date-time', example: '2026-11-21T12:00:00.000Z' });

export function envelope<T extends z.ZodType>(data: T, pagination?: z.ZodType) {
  return pagination ? z.object({ data, pagination }) : z.object({ data });
}

// ---- query parameters ------------------------------------------------------------------------

const REPEATED = 'must be given once';

/** Error messages for a single query value of the given kind; undefined keeps zod's message. */
export const single = (what: string) => ({
  error: (issue: { code: string; input?: unknown }) =>
    Array.isArray(issue.input) ? REPEATED : issue.code === 'invalid_type' ? `must be ${what}` : undefined,
});

/**
 * A number from the query string, written as a plain decimal: digits, a fraction for non-integers,
 * a leading `-` only where negatives are allowed. Anything Number() would also read (`1e1`, `0x10`,
 * `+5`, ` 5`, `.5`, blank) is refused, as is a repeated parameter. The OpenAPI document gives the
 * number's type and bounds and says so in words: JSON Schema ignores `pattern` on a number.
 */
export function queryNumber(min: number, max: number, integer = false) {
  const between = `must be between ${min} and ${max}`;
  const sign = min < 0 ? '-?' : '';
  const pattern = integer ? `^${sign}\\d+$` : `^${sign}\\d+(\\.\\d+)?$`;
  const plain = new RegExp(pattern);
  // Not a plain decimal: NaN, which z.number() refuses with "must be a number/an integer".
  const toNumber = (v: unknown): unknown => (typeof v === 'string' ? (plain.test(v) ? Number(v) : Number.NaN) : v);
  let n = z.number(single(integer ? 'an integer' : 'a number'));
  if (integer) n = n.int('must be an integer');
  const description = integer
    ? 'Written as plain digits'
    : 'Written as plain digits, with an optional fraction (no exponent)';
  return z.preprocess(toNumber, n.min(min, between).max(max, between)).openapi({
    type: integer ? 'integer' : 'number',
    minimum: min,
    maximum: max,
    description: `${description}${min < 0 ? ', a leading - for negatives' : ''}.`,
  });
}

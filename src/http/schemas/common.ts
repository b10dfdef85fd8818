import { z } from '../openapi/zod.js';
import { ENVIRONMENTS } from '../../domain/environment.js';
import { ERROR_CODES, type ErrorCode } from '../../domain/errors.js';
import { lengthInCharacters, trimmedLengthPattern } from './text-patterns.js';
import { REPEATED_PARAMETER } from '../validation.js';

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

/** A promo code as partners type it: 1 to 32 characters after trimming (the order and the promo check). */
export const promoCode = (description: string) =>
  z
    .string()
    .trim()
    .refine(...lengthInCharacters(1, 32))
    .openapi({ description, pattern: trimmedLengthPattern(1, 32) });

/**
 * A line's option ids, each once: uniqueItems, which the document states, so a repeat is a 400
 * before the catalog's rules (422), in an order and in a promo code's basket alike.
 */
export const modifierIds = (id: z.ZodType<string>, description: string) =>
  z
    .array(id)
    .max(50)
    .superRefine((ids, ctx) => {
      // The first repeat only: an answer stays small whatever the request holds.
      const j = ids.findIndex((v, i) => ids.indexOf(v) !== i);
      if (j >= 0) ctx.addIssue({ code: 'custom', message: `repeats option ${ids[j]}`, path: [j] });
    })
    .optional()
    .openapi({ uniqueItems: true, description });

export const IsoTimestamp = z.string().openapi({ format: 'date-time', example: '2026-11-21T12:00:00.000Z' });

export function envelope<T extends z.ZodType>(data: T, pagination?: z.ZodType) {
  return pagination ? z.object({ data, pagination }) : z.object({ data });
}

// ---- query parameters ------------------------------------------------------------------------

/**
 * Error messages for a single query value of the given kind; undefined leaves the wording to
 * validation.ts (a missing required one "is required").
 */
export const single = (what: string) => ({
  error: (issue: { code: string; input?: unknown }) =>
    Array.isArray(issue.input)
      ? REPEATED_PARAMETER
      : issue.code === 'invalid_type' && issue.input !== undefined
        ? `must be ${what}`
        : undefined,
});

/**
 * The `starting_after` cursor of a list: an id of the listed resource, of the form `pattern` (in
 * the document, and checked: another form is a 400). A well-formed id that names none of the
 * caller's is the resource's 404, which the list answers (e.g. OrderQueries.list).
 */
export function cursorParam(c: {
  pattern: string;
  /** `an order`: the article and the resource. */
  anId: string;
  /** The id's form in Markdown, e.g. "`whd_` + 32 hex digits". */
  form: string;
  /** Whose ids are known, e.g. "your orders in this environment". */
  yours: string;
  notFound: ErrorCode;
}) {
  const noun = c.anId.split(' ')[1]!;
  return z
    .string()
    .min(1)
    .max(80)
    .regex(new RegExp(c.pattern), `must be ${c.anId} id (${c.form.replaceAll('`', '')})`)
    .optional()
    .openapi({
      pattern: c.pattern,
      description:
        `${c.anId[0]!.toUpperCase()}${c.anId.slice(1)} id from the previous page (${c.form}): the next page starts after it. ` +
        `An id that is not one of ${c.yours}: 404 ${c.notFound} "starting_after: no ${noun} with id …".`,
    });
}

/**
 * A number from the query string. An integer is plain digits; any other number is a JSON number
 * (`29.3349`, `-1e-05`: what a typed client's number-to-text writes, e.g. JavaScript for 1e-7),
 * a leading `-` only where negatives are allowed. Other forms Number() would also read (`0x10`,
 * `+5`, ` 5`, `.5`, `5.`, `Infinity`, blank) are refused, as is a repeated parameter.
 */
export function queryNumber(min: number, max: number, integer = false) {
  const between = `must be between ${min} and ${max}`;
  const sign = min < 0 ? '-?' : '';
  const pattern = integer ? `^${sign}\\d+$` : `^${sign}\\d+(\\.\\d+)?([eE][+-]?\\d+)?$`;
  const plain = new RegExp(pattern);
  // Not of that form: NaN, which z.number() refuses with "must be a number/an integer".
  const toNumber = (v: unknown): unknown => (typeof v === 'string' ? (plain.test(v) ? Number(v) : Number.NaN) : v);
  let n = z.number(single(integer ? 'an integer' : 'a number'));
  if (integer) n = n.int('must be an integer');
  const description = integer
    ? 'Written as plain digits'
    : 'Written as a JSON number: digits, an optional fraction, an optional exponent';
  return z.preprocess(toNumber, n.min(min, between).max(max, between)).openapi({
    type: integer ? 'integer' : 'number',
    minimum: min,
    maximum: max,
    description: `${description}${min < 0 ? ', a leading - for negatives' : ''}.`,
  });
}

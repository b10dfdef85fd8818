import { isUtf8 } from 'node:buffer';
import querystring from 'node:querystring';
import type { z } from 'zod';
import { ApiError, type ErrorDetail } from '../domain/errors.js';
import { formatPath } from '../shared/json-path.js';
import { ILL_FORMED, illFormedPath } from '../shared/unicode.js';

/** Parses `input` or throws a 400 validation_error that names every failing parameter or field. */
export function parseOrThrow<T>(
  schema: z.ZodType<T>,
  input: unknown,
  where: 'query' | 'path' | 'body' | 'header',
  prefix = '',
): T {
  // Headers arrive as latin1 text, always well-formed; everything else is checked here, once.
  const illFormed = where === 'header' ? undefined : illFormedPath(input);
  if (illFormed) {
    const param = prefix + formatPath(illFormed) || where;
    throw new ApiError(
      'validation_error',
      `Invalid ${where === 'body' ? 'field' : 'parameter'} ${param}: ${ILL_FORMED}`,
      { param },
    );
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const base = formatPath(issue.path);
    let param = prefix + (keys.length ? formatPath([...issue.path, keys[0]!]) : base) || where;
    // Headers arrive lower-cased; name them as documented (idempotency-key -> Idempotency-Key).
    if (where === 'header')
      param = param.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown ${where} parameter${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}`
        : issue.message;
    return { param, message };
  });
  const first = details[0]!;
  const label = where === 'body' ? 'field' : where === 'header' ? 'header' : 'parameter';
  throw new ApiError('validation_error', `Invalid ${label} ${first.param}: ${first.message}`, {
    param: first.param,
    details,
  });
}

/** Bytes a UTF-8 sequence with this lead byte has; 0 when no sequence starts with it. */
const sequenceLength = (lead: number): number =>
  lead < 0x80
    ? 1
    : lead >= 0xc2 && lead <= 0xdf
      ? 2
      : lead >= 0xe0 && lead <= 0xef
        ? 3
        : lead >= 0xf0 && lead <= 0xf4
          ? 4
          : 0;

/**
 * Bytes -> text where each byte that is not part of valid UTF-8 becomes the unpaired surrogate
 * U+DC80..U+DCFF (Python's "surrogateescape"), so the check in `parseOrThrow` refuses it and names
 * the parameter, where a silent U+FFFD would pass as something the caller never sent.
 */
function surrogateEscape(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let text = '';
  for (let i = 0; i < bytes.length;) {
    const n = sequenceLength(bytes[i]!);
    if (n > 0 && i + n <= bytes.length && isUtf8(bytes.subarray(i, i + n))) {
      text += bytes.toString('utf8', i, i + n);
      i += n;
    } else {
      text += String.fromCharCode(0xdc00 + bytes[i]!);
      i += 1;
    }
  }
  return text;
}

/** `%XX` escapes as the bytes they stand for; the rest (a stray `%` too, as querystring keeps it) as its UTF-8. */
const percentBytes = (text: string): Buffer =>
  Buffer.concat(
    text
      .split(/(%[0-9A-Fa-f]{2})/)
      .map((part, i) => (i % 2 ? Buffer.from([parseInt(part.slice(1), 16)]) : Buffer.from(part, 'utf8'))),
  );

function decodeQueryComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return surrogateEscape(percentBytes(text));
  }
}

/** Express's "simple" query parser (node:querystring), keeping invalid UTF-8 detectable (see surrogateEscape). */
export const parseQueryString = (text: string): Record<string, unknown> =>
  querystring.parse(text, '&', '=', { decodeURIComponent: decodeQueryComponent });

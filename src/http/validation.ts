import type { z } from 'zod';
import { ApiError, type ErrorDetail } from '../domain/errors.js';
import { formatPath } from '../shared/json-path.js';


/** Parses `input` or throws a 400 validation_error that names every failing parameter or field. */
export function parseOrThrow<T>(schema: z.ZodType<T>, input: unknown, where: 'query' | 'path' | 'body' | 'header', prefix = ''): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const base = formatPath(issue.path);
    let param = prefix + (keys.length ? formatPath([...issue.path, keys[0]!]) : base) || where;
    // Headers arrive lower-cased; name them as documented (idempotency-key -> Idempotency-Key).
    if (where === 'header') param = param.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
    const message = issue.code === 'unrecognized_keys' ? `unknown ${where} parameter${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}` : issue.message;
    return { param, message };
  });
  const first = details[0]!;
  const label = where === 'body' ? 'field' : where === 'header' ? 'header' : 'parameter';
  throw new ApiError('validation_error', `Invalid ${label} ${first.param}: ${first.message}`, { param: first.param, details });
}

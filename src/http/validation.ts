import { isUtf8 } from 'node:buffer';
import querystring from 'node:querystring';
import type { z } from 'zod';
import { ApiError, type ErrorDetail } from '../domain/errors.js';
import { formatPath } from '../shared/json-path.js';
import { ILL_FORMED, illFormedPath } from '../shared/unicode.js';
import { POINT_PARAMETER } from './openapi/paired-query.js';

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
    throw new ApiError('validation_error', sentence(param, ILL_FORMED, where), { param });
  }
  // Parsed without a context first: zod copies a given one with a spread, a new V8 shape for every
  // request (src/shared/objects.ts), and only a failure needs the messages. Parsing is pure, so the
  // second parse finds the same issues. Messages a schema gives itself win; the rest are worded
  // here (see issueMessage), not zod's text.
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const result = schema.safeParse(input, { error: (issue) => issueMessage(schema, issue, where) });
  if (result.success) return result.data;
  const all: ErrorDetail[] = withoutFollowUps(result.error.issues).flatMap((issue) => {
    const named = (path: readonly PropertyKey[]) => {
      const param = prefix + formatPath(path) || where;
      return where === 'header' ? documentedHeader(param) : param;
    };
    if (issue.code === 'unrecognized_keys') {
      const unknown =
        where === 'body' ? 'is not a field of this request' : `is not a ${where} parameter of this endpoint`;
      return issue.keys.map((key) => {
        const param = named([...issue.path, key]);
        // The document shows lat and lng as one `point` parameter (paired-query.ts); on the wire they are two.
        const point = where === 'query' && param === POINT_PARAMETER && schemaAt(schema, ['lat']) !== undefined;
        const said = point
          ? `${unknown}: the document's point is sent as lat and lng (lat=29.3349&lng=48.0878)`
          : unknown;
        return { param, message: sentence(param, said, where) };
      });
    }
    const param = named(issue.path);
    return [{ param, message: sentence(param, issue.message, where) }];
  });
  // Two checks can fail alike (an integer past both its bound and the safe range): said once.
  const said = new Set<string>();
  const details = all.filter((d) => {
    const key = `${d.param}\u0000${d.message}`;
    return !said.has(key) && Boolean(said.add(key));
  });
  const first = details[0]!;
  throw new ApiError('validation_error', first.message, { param: first.param, details });
}

/**
 * Refuses a header the endpoint reads when it came on several lines: Node joins such lines into one
 * value ("a, b"), which would pass as one value that no single line carried (two Idempotency-Keys
 * would make a third key). `names` lower-case, as the header schema's keys.
 */
export function refuseRepeatedHeaders(names: readonly string[], rawHeaders: readonly string[]): void {
  for (const name of names) {
    let sent = 0;
    for (let i = 0; i < rawHeaders.length; i += 2)
      if (rawHeaders[i]!.length === name.length && rawHeaders[i]!.toLowerCase() === name) sent++;
    if (sent > 1) {
      const param = documentedHeader(name);
      throw new ApiError('validation_error', `Send one ${param} header, not several.`, { param });
    }
  }
}

/** Headers arrive lower-cased; named as documented (idempotency-key -> Idempotency-Key). */
const documentedHeader = (name: string): string =>
  name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

/**
 * "customer.name" + "is required" -> "customer.name is required."; a message that already names
 * its subject ("the Idempotency-Key header is required") stands alone; the whole body is "The request body".
 */
function sentence(param: string, message: string, where: string): string {
  const text =
    /^the /i.test(message) && message.toLowerCase().includes(param.toLowerCase())
      ? message.charAt(0).toUpperCase() + message.slice(1)
      : `${param === 'body' && where === 'body' ? 'The request body' : param} ${message}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** The parts of zod's schema internals read to word a message (zod keeps them in `_zod.def`). */
interface SchemaNode {
  _zod: {
    def: {
      type: string;
      format?: string;
      innerType?: SchemaNode;
      in?: SchemaNode;
      out?: SchemaNode;
      shape?: Record<string, SchemaNode>;
      element?: SchemaNode;
      valueType?: SchemaNode;
      items?: SchemaNode[];
      getter?: () => SchemaNode;
      checks?: {
        _zod: { def: { check: string; value?: unknown; inclusive?: boolean; minimum?: number; maximum?: number } };
      }[];
    };
  };
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/** The schema that checks the value itself: wrappers removed; of a pipe, the side with the checks. */
function unwrap(node: SchemaNode | undefined): SchemaNode | undefined {
  for (let depth = 0; node && depth < 20; depth++) {
    const def = node._zod.def;
    if (WRAPPERS.has(def.type)) node = def.innerType;
    else if (def.type === 'lazy' && def.getter) node = def.getter();
    // z.preprocess(fn, schema) is transform -> schema; schema.transform(fn) is schema -> transform.
    else if (def.type === 'pipe') node = def.in?._zod.def.type === 'transform' ? def.out : def.in;
    else return node;
  }
  return node;
}

/** The schema at `path` inside `root` (objects, arrays, records, tuples); undefined when it cannot tell. */
function schemaAt(root: SchemaNode, path: readonly PropertyKey[]): SchemaNode | undefined {
  let node = unwrap(root);
  for (const key of path) {
    const def = node?._zod.def;
    if (!def) return undefined;
    if (def.type === 'object' && typeof key === 'string') node = unwrap(def.shape?.[key]);
    else if (def.type === 'array') node = unwrap(def.element);
    else if (def.type === 'record') node = unwrap(def.valueType);
    else if (def.type === 'tuple' && typeof key === 'number') node = unwrap(def.items?.[key]);
    else return undefined;
  }
  return node;
}

interface Bounds {
  integer: boolean;
  min?: { value: number; inclusive: boolean };
  max?: { value: number; inclusive: boolean };
  minLength?: number;
  maxLength?: number;
}

function boundsOf(node: SchemaNode | undefined): Bounds {
  const def = node?._zod.def;
  const bounds: Bounds = { integer: def?.type === 'number' && /int/.test(def.format ?? '') };
  for (const check of def?.checks ?? []) {
    const c = check._zod.def;
    if (c.check === 'greater_than' && typeof c.value === 'number')
      bounds.min = { value: c.value, inclusive: !!c.inclusive };
    if (c.check === 'less_than' && typeof c.value === 'number')
      bounds.max = { value: c.value, inclusive: !!c.inclusive };
    if (c.check === 'min_length') bounds.minLength = c.minimum;
    if (c.check === 'max_length') bounds.maxLength = c.maximum;
    if (c.check === 'length_equals') bounds.minLength = bounds.maxLength = c.value as number;
  }
  return bounds;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "an integer from 1 to 99", "a number greater than 0", "at most 5" … */
function numberRange(b: Bounds, issue: { minimum?: unknown; maximum?: unknown; inclusive?: boolean }, small: boolean) {
  const kind = b.integer ? 'an integer' : 'a number';
  const min = b.min ?? (small ? { value: Number(issue.minimum), inclusive: issue.inclusive !== false } : undefined);
  const max = b.max ?? (small ? undefined : { value: Number(issue.maximum), inclusive: issue.inclusive !== false });
  if (min && max && min.inclusive && max.inclusive) return `must be ${kind} from ${min.value} to ${max.value}`;
  const parts = [
    min && (min.inclusive ? `at least ${min.value}` : `greater than ${min.value}`),
    max && (max.inclusive ? `at most ${max.value}` : `less than ${max.value}`),
  ].filter(Boolean);
  return `must be ${kind} ${parts.join(' and ')}`;
}

/** "1 to 100 characters", "at most 50 items", "must not be empty" … */
function lengthRange(b: Bounds, issue: { minimum?: unknown; maximum?: unknown }, small: boolean, unit: string) {
  const min = b.minLength ?? (small ? Number(issue.minimum) : undefined);
  const max = b.maxLength ?? (small ? undefined : Number(issue.maximum));
  const verb = unit === 'character' ? 'be' : 'have';
  if (min !== undefined && max !== undefined)
    return min === max ? `must ${verb} exactly ${plural(min, unit)}` : `must ${verb} ${min} to ${plural(max, unit)}`;
  if (min !== undefined) return min === 1 ? 'must not be empty' : `must ${verb} at least ${plural(min, unit)}`;
  return `must ${verb} at most ${plural(max ?? 0, unit)}`;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

const FORMAT_WORDS: Record<string, string> = {
  datetime: 'an RFC 3339 date and time, e.g. 2026-11-21T12:00:00Z',
  date: 'an RFC 3339 date, e.g. 2026-11-21',
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
};

/** A query parameter sent more than once (`?status=a&status=b`) where the endpoint takes one value. */
export const REPEATED_PARAMETER = 'must be given once';

/** A zod issue (`z.core.$ZodRawIssue`) as words a partner can act on; the subject is added by `sentence`. */
function issueMessage(root: z.ZodType, issue: z.core.$ZodRawIssue, where: string): string {
  const path = issue.path ?? [];
  const node = () => schemaAt(root, path);
  // The query parser gives a repeated parameter as an array: whatever the check, that is what is wrong.
  if (where === 'query' && Array.isArray(issue.input) && path.length === 1 && node()?._zod.def.type !== 'array')
    return REPEATED_PARAMETER;
  // A missing field fails as a wrong type, a wrong enum value or no union member: all "required".
  const absent = issue.input === undefined && path.length > 0;
  if (absent && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union'))
    return 'is required';
  switch (issue.code) {
    case 'invalid_type': {
      if (path.length === 0 && issue.expected === 'object') return 'must be a JSON object';
      const expected = issue.expected === 'number' && boundsOf(node()).integer ? 'int' : issue.expected;
      return `must be ${TYPE_WORDS[expected] ?? expected}`;
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const b = boundsOf(node());
      if (issue.origin === 'number' || issue.origin === 'int') return numberRange(b, issue, small);
      if (issue.origin === 'string') return lengthRange(b, issue, small, 'character');
      if (issue.origin === 'array' || issue.origin === 'set') return lengthRange(b, issue, small, 'item');
      return small ? `must be at least ${String(issue.minimum)}` : `must be at most ${String(issue.maximum)}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      if (issue.format === 'regex') return `must match the pattern ${String(issue.pattern)}`;
      if (issue.format === 'starts_with') return `must start with ${JSON.stringify(issue.prefix)}`;
      if (issue.format === 'ends_with') return `must end with ${JSON.stringify(issue.suffix)}`;
      if (issue.format === 'includes') return `must contain ${JSON.stringify(issue.includes)}`;
      return `must be ${FORMAT_WORDS[issue.format] ?? `a valid ${issue.format}`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_union': {
      // A discriminated union (the simulate actions): its key is missing or names no form.
      const union = issue as { discriminator?: string; options?: unknown[] };
      if (union.discriminator && union.options) {
        const input = issue.input;
        const value =
          input !== null && typeof input === 'object' ? (input as Record<string, unknown>)[union.discriminator] : input;
        if (value === undefined) return 'is required';
        return `must be one of ${union.options.map((v) => JSON.stringify(v)).join(', ')}`;
      }
      return 'matches none of the accepted forms';
    }
    case 'invalid_key':
      return 'has a key that is not accepted';
    case 'invalid_element':
      return 'has a value that is not accepted';
    case 'unrecognized_keys':
      return `has unknown fields: ${issue.keys.join(', ')}`;
    default:
      return 'is not valid';
  }
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

/**
 * The issues without those that follow a wrong type at the same path: zod still runs an array's
 * size checks on a string given instead (`"events": "order.created"` would also be "1 to 10
 * characters"), and a value of the wrong type has nothing more to be told about.
 */
function withoutFollowUps(issues: readonly z.core.$ZodIssue[]): readonly z.core.$ZodIssue[] {
  const mistyped = new Set(
    issues.filter((i) => i.code === 'invalid_type').map((i) => i.path.map(String).join('\u0000')),
  );
  if (mistyped.size === 0) return issues;
  return issues.filter((i) => i.code === 'invalid_type' || !mistyped.has(i.path.map(String).join('\u0000')));
}

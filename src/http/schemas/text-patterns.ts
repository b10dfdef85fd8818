import { characterCount, FORMAT_CLASS } from '../../shared/unicode.js';

/**
 * JSON Schema `pattern`s for values the service reads from text in its own way, so the OpenAPI
 * document says exactly what it accepts: a string whose length is checked after trimming. Written with explicit
 * ASCII and whitespace classes (no `\d`, `\s`), which read the same in ECMA-262 (the service,
 * JSON Schema validators) and in Python (schemathesis), where `\d` and `\s` are wider.
 */

/** The whitespace String.prototype.trim removes (ECMA-262 WhiteSpace and LineTerminator). */
const WS = '[\\t\\n\\x0b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';
const NOT_WS = '[^\\t\\n\\x0b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';
const ANY = '[\\s\\S]';

/**
 * Somewhere a character that is neither whitespace nor a format character (unanchored, as JSON
 * Schema reads a pattern): text whose characters are all invisible (a lone joiner or direction
 * mark) is no name or reference, though trimming leaves it a character long.
 */
export const VISIBLE_CHARACTER_PATTERN = `${NOT_WS.slice(0, -1)}${FORMAT_CLASS}]`;
export const VISIBLE_CHARACTER = new RegExp(VISIBLE_CHARACTER_PATTERN, 'u');

/**
 * A string of `min` to `max` characters once leading and trailing whitespace is trimmed (what
 * `z.string().trim()` followed by a length check accepts); `min` 0 allows a blank string.
 * Lengths count characters (code points) as JSON Schema does, and as the service does (`characters`).
 */
export function trimmedLengthPattern(min: number, max: number): string {
  if (max < 1 || min > max) throw new RangeError(`bad length range ${min}..${max}`);
  const tail = max === 1 ? '' : `(?:${ANY}{${Math.max(0, min - 2)},${max - 2}}${NOT_WS})`;
  const core = min >= 2 ? `${NOT_WS}${tail}` : `${NOT_WS}${tail ? `${tail}?` : ''}`;
  return `^${WS}*${min === 0 ? `(?:${core})?` : core}${WS}*$`;
}

/**
 * The check and message of a text's length in characters, for zod's `refine`: after `.trim()` it
 * goes with `trimmedLengthPattern(min, max)` in the document (`.trim().refine(...lengthInCharacters(1,
 * 32))`); on text kept as sent, with `minLength`/`maxLength`, which count characters the same way.
 */
export function lengthInCharacters(min: number, max: number): [(text: string) => boolean, string] {
  const check = (text: string) => {
    const n = characterCount(text);
    return n >= min && n <= max;
  };
  return [check, min === 0 ? `must be at most ${max} characters` : `must be ${min} to ${max} characters`];
}

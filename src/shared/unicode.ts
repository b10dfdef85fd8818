// In Unicode mode a surrogate pair is one code point, so this matches only a surrogate left unpaired.
const UNPAIRED_SURROGATE = /[\uD800-\uDFFF]/u;
export const ILL_FORMED = 'must be well-formed Unicode (valid UTF-8, no unpaired surrogate such as \\ud800)';

interface Visit {
  value: unknown;
  parent: Visit | undefined;
  key: string | number | undefined;
}

const pathOf = (visit: Visit): Array<string | number> => {
  const path: Array<string | number> = [];
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) path.unshift(v.key);
  return path;
};

/**
 * The path of the first string in `input` (a value, or a key: then the object holding it) that is
 * not well-formed Unicode. Such a string cannot be encoded as UTF-8: stored, it would break every
 * reader that encodes it (webhook bodies, Python clients) and no query could find it again.
 * Iterative, since JSON.parse accepts bodies nested deeper than the call stack.
 */
export function illFormedPath(input: unknown): Array<string | number> | undefined {
  const stack: Visit[] = [{ value: input, parent: undefined, key: undefined }];
  while (stack.length) {
    const visit = stack.pop()!;
    const value = visit.value;
    if (typeof value === 'string') {
      if (UNPAIRED_SURROGATE.test(value)) return pathOf(visit);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: visit, key: i });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (UNPAIRED_SURROGATE.test(key)) return pathOf(visit);
        stack.push({ value: (value as Record<string, unknown>)[key], parent: visit, key });
      }
    }
  }
  return undefined;
}

/**
 * The length of `text` as JSON Schema counts it (`maxLength`, and `{m,n}` in a pattern): code
 * points, so an emoji is one character, not the two UTF-16 units of `String.length`. Every length
 * the service states for text is checked with it, so the documents and the checks never disagree.
 */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The format characters (Cf) of Unicode 17, as code point ranges (tested equal to `\p{Cf}`). */
const FORMAT: ReadonlyArray<readonly [number, number]> = [
  [0xad, 0xad],
  [0x600, 0x605],
  [0x61c, 0x61c],
  [0x6dd, 0x6dd],
  [0x70f, 0x70f],
  [0x890, 0x891],
  [0x8e2, 0x8e2],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
  [0x13430, 0x1343f],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0001, 0xe0001],
  [0xe0020, 0xe007f],
];

/**
 * What free text refuses, as code point ranges: control characters (Cc: NUL, CR/LF, tab, ESC), the
 * line and paragraph separators, the bidirectional embeddings, overrides and isolates (they
 * reorder the text after them on display: a name or reference shown in the console or a terminal
 * could read as something else), and the invisible characters with no part in spelling a name,
 * which can hide text or make two values look alike (the zero-width space, the word joiner and
 * invisible operators, the Mongolian vowel separator, the deprecated format controls, the BOM, the
 * interlinear annotations). The format characters names are written with are accepted: the
 * zero-width non-joiner and joiner (Persian and Arabic spelling, emoji sequences), the
 * left-to-right, right-to-left and Arabic letter marks (mixed-direction names), the soft hyphen,
 * the Arabic number signs, the scripts' own format marks, and the tag characters (the England,
 * Scotland and Wales flags are tag sequences). Spelled out as `\uXXXX` escapes of the BMP only,
 * rather than `\p{…}` classes or astral literals, so the pattern in the OpenAPI document compiles
 * alike in JavaScript with or without the `u` flag, Python and Rust (API tools that generate or
 * check requests).
 */
const REFUSED_IN_TEXT: ReadonlyArray<readonly [number, number]> = [
  [0x0, 0x1f],
  [0x7f, 0x9f],
  [0x180e, 0x180e],
  [0x200b, 0x200b],
  [0x2028, 0x2029],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
];
const spell = (cp: number) => (cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : String.fromCodePoint(cp));
const spellRanges = (ranges: ReadonlyArray<readonly [number, number]>): string =>
  ranges.map(([a, b]) => (a === b ? spell(a) : `${spell(a)}-${spell(b)}`)).join('');
/** What a refusal by PRINTABLE_PATTERN says, after the field's name. */
export const PRINTABLE_RULE =
  'must not contain control characters (line breaks, tabs, escapes, bidi overrides, zero-width spaces)';
/** Printable text: none of REFUSED_IN_TEXT anywhere (so no CR/LF header or log injection, no reordered display). */
export const PRINTABLE_PATTERN = `^[^${spellRanges(REFUSED_IN_TEXT)}]*$`;
/** PRINTABLE_PATTERN compiled, for every check of it (no `g` flag: shared safely). */
export const PRINTABLE_TEXT = new RegExp(PRINTABLE_PATTERN, 'u');
/**
 * The format characters of the BMP, spelled for a regex character class (the astral ones, tags and
 * scripts' marks, would make a pattern that only compiles with the `u` flag).
 */
export const FORMAT_CLASS = spellRanges(FORMAT.filter(([, last]) => last <= 0xffff));

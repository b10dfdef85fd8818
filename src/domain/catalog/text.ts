/**
 * Name matching that forgives case, accents and the ways Arabic is commonly typed.
 * Both the stored names and the query go through `normalise`, then `matchRank` compares.
 */

const MARKS = /[\u0300-\u036f\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]/g; // accents, harakat, tatweel
const LETTER_FOLDS: Record<string, string> = {
  '\u0671': 'ا', // alef wasla (أ إ آ already decompose to ا + mark)
  ى: 'ي',
  ی: 'ي', // Persian yeh
  ک: 'ك', // keheh
  ة: 'ه',
};

export function normalise(text: string): string {
  return text
    .normalize('NFKD') // splits é -> e + accent, أ -> ا + hamza, presentation forms -> letters
    .toLowerCase()
    .replace(MARKS, '')
    .replace(/[\u0671ىیکة]/g, (c) => LETTER_FOLDS[c] ?? c)
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/['\u2019`]/g, '') // McDonald's ~ mcdonalds
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The forms a name or query is matched in: normalised, and also with the Arabic article ال
 * taken off each word, so "الشاورما" finds "شاورما الريم" and "ريم" finds "الريم".
 */
export function matchForms(text: string): string[] {
  const n = normalise(text);
  const bare = n
    .split(' ')
    .map((w) => (w.length >= 4 && w.startsWith('ال') ? w.slice(2) : w))
    .join(' ');
  return bare === n ? [n] : [n, bare];
}

/** Lower is better. */
export const RANK = { exact: 0, prefix: 1, word_prefix: 2, substring: 3, all_words: 4 } as const;

/**
 * How well a matched form of a name compares with one of the query, or null for no match:
 * exact > prefix of the name > prefix of a word > anywhere > every query word starts a word.
 */
export function matchRank(key: string, q: string): number | null {
  if (q === '') return null;
  // Every kind of match contains the query's first word: most names fail this one cheap test.
  const space = q.indexOf(' ');
  if (!key.includes(space === -1 ? q : q.slice(0, space))) return null;
  if (key === q) return RANK.exact;
  if (key.startsWith(q)) return RANK.prefix;
  if (key.includes(` ${q}`)) return RANK.word_prefix;
  if (key.includes(q)) return RANK.substring;
  const words = q.split(' ');
  if (words.length > 1 && words.every((w) => key.startsWith(w) || key.includes(` ${w}`))) return RANK.all_words;
  return null;
}

/** Best rank of any form of the name (English and Arabic) against any form of the query. */
export function bestRank(keys: readonly string[], queries: readonly string[]): number | null {
  let best: number | null = null;
  for (const key of keys) {
    for (const q of queries) {
      const r = matchRank(key, q);
      if (r !== null && (best === null || r < best)) best = r;
    }
  }
  return best;
}

/**
 * A string every matching name form contains: the first word of the last (article-free) query
 * form, which is inside every other form's first word too. Lets a search skip most names with
 * one `includes` on all their forms joined.
 */
export function requiredFragment(queries: readonly string[]): string {
  const last = queries[queries.length - 1] ?? '';
  const space = last.indexOf(' ');
  return space === -1 ? last : last.slice(0, space);
}

import { describe, expect, it } from 'vitest';
import { indexStore, listStores, searchCatalog } from '../../src/domain/catalog/search.js';
import { bestRank, matchForms, matchRank, normalise, RANK } from '../../src/domain/catalog/text.js';
import { makeItem, makeStore, north, SALMIYA } from './catalog-fixtures.js';

const NOON_KW = new Date('2026-11-23T09:00:00Z');

describe('normalise', () => {
  it('lowercases, drops accents and punctuation, and collapses spaces', () => {
    expect(normalise('  Café  BLOOM! ')).toBe('cafe bloom');
    expect(normalise("McDonald's")).toBe('mcdonalds');
    expect(normalise('Grills & Coals')).toBe('grills coals');
  });

  it('unifies the ways Arabic is typed: alef forms, ya/alef maqsura, ta marbuta, harakat, tatweel, digits', () => {
    expect(normalise('أحمد')).toBe('احمد');
    expect(normalise('إسلام')).toBe('اسلام');
    expect(normalise('آمنة')).toBe('امنه');
    expect(normalise('مستشفى')).toBe('مستشفي');
    expect(normalise('شَاوِرْمَا')).toBe('شاورما');
    expect(normalise('شـــاورما')).toBe('شاورما');
    expect(normalise('٢٤ ساعة')).toBe('24 ساعه');
  });
});

describe('matchRank', () => {
  it('ranks exact > prefix > word prefix > substring > all words, else no match', () => {
    expect(matchRank('reem', 'reem')).toBe(RANK.exact);
    expect(matchRank('reem grill', 'reem')).toBe(RANK.prefix);
    expect(matchRank('shawarma al reem', 'reem')).toBe(RANK.word_prefix);
    expect(matchRank('kareem bakery', 'reem')).toBe(RANK.substring);
    expect(matchRank('shawarma al reem', 'reem shawarma')).toBe(RANK.all_words);
    expect(matchRank('burger hub', 'reem')).toBeNull();
  });

  it('matches Arabic words with or without the article ال', () => {
    expect(matchForms('شاورما الريم')).toEqual(['شاورما الريم', 'شاورما ريم']);
    expect(bestRank(matchForms('الريم'), matchForms('ريم'))).toBe(RANK.exact);
    expect(bestRank(matchForms('شاورما الريم'), matchForms('ريم'))).toBe(RANK.word_prefix);
    expect(bestRank(matchForms('محطة الشاورما'), matchForms('الشاورما'))).toBe(RANK.word_prefix);
    expect(bestRank(matchForms('شاورما الريم'), matchForms('الشاورما'))).toBe(RANK.prefix);
    // Short words that merely start with the letters are left alone.
    expect(matchForms('الو')).toEqual(['الو']);
  });
});

describe('listStores', () => {
  const entries = [
    makeStore({ id: 'kareem', name: 'Kareem Bakery', name_ar: null, vertical: 'grocery' }),
    makeStore({ id: 'reem-shawarma', name: 'Shawarma Al Reem', name_ar: 'شاورما الريم' }),
    makeStore({ id: 'reem', name: 'Reem', name_ar: 'الريم' }),
    makeStore({ id: 'reem-grill', name: 'Reem Grill', name_ar: null, busy: true }),
    makeStore({ id: 'amir', name: 'Al Amir Sweets', name_ar: 'حلويات الأمير', opening_hours: [] }),
  ].map(indexStore);
  const ids = (q: Parameters<typeof listStores>[1]) => listStores(entries, q, NOON_KW).data.map((h) => h.store.id);

  it('when q is given, then matches case-insensitively, best match first', () => {
    expect(ids({ q: 'REEM', page: 1, limit: 20 })).toEqual(['reem', 'reem-grill', 'reem-shawarma', 'kareem']);
  });

  it('when q is Arabic, then matches Arabic names whatever the hamza or diacritics', () => {
    expect(ids({ q: 'الريم', page: 1, limit: 20 })).toEqual(['reem', 'reem-shawarma']);
    expect(ids({ q: 'الامير', page: 1, limit: 20 })).toEqual(['amir']);
    expect(ids({ q: 'حلويات الأمير', page: 1, limit: 20 })).toEqual(['amir']);
  });

  it('when q has no letters or digits, then nothing matches', () => {
    expect(listStores(entries, { q: '!!', page: 1, limit: 20 }, NOON_KW).total).toBe(0);
  });

  it('filters by vertical and by status at the given instant', () => {
    expect(ids({ vertical: 'grocery', page: 1, limit: 20 })).toEqual(['kareem']);
    expect(ids({ status: 'busy', page: 1, limit: 20 })).toEqual(['reem-grill']);
    expect(ids({ status: 'closed', page: 1, limit: 20 })).toEqual(['amir']);
  });

  it('without q, orders by name, case-insensitively', () => {
    expect(ids({ page: 1, limit: 20 })).toEqual(['amir', 'kareem', 'reem', 'reem-grill', 'reem-shawarma']);
  });

  describe('pagination', () => {
    it('pages hold limit stores and say whether more follow', () => {
      const first = listStores(entries, { page: 1, limit: 2 }, NOON_KW);
      expect(first).toMatchObject({ page: 1, limit: 2, total: 5, has_more: true });
      expect(first.data).toHaveLength(2);
    });

    it('the last page is partial and has_more is false', () => {
      const last = listStores(entries, { page: 3, limit: 2 }, NOON_KW);
      expect(last.data.map((h) => h.store.id)).toEqual(['reem-shawarma']);
      expect(last).toMatchObject({ total: 5, has_more: false });
    });

    it('a page past the end is empty but still reports the total', () => {
      const past = listStores(entries, { page: 4, limit: 2 }, NOON_KW);
      expect(past).toMatchObject({ data: [], total: 5, has_more: false });
    });

    it('pages are stable: together they list every store once', () => {
      const all = [1, 2, 3].flatMap((page) =>
        listStores(entries, { page, limit: 2 }, NOON_KW).data.map((h) => h.store.id),
      );
      expect(new Set(all).size).toBe(5);
    });
  });
});

describe('searchCatalog', () => {
  const near = makeStore({
    id: 'near',
    name: 'Shawarma Al Reem',
    name_ar: 'شاورما الريم',
    menu: {
      categories: [
        {
          id: 'mains',
          name: 'Mains',
          name_ar: null,
          items: [
            makeItem({ id: 'chicken', name: 'Chicken Shawarma', name_ar: 'شاورما دجاج' }),
            makeItem({ id: 'sold-out', name: 'Shawarma Plate', name_ar: null, available: false }),
            makeItem({ id: 'platter', name: 'Shawarma Arabi', name_ar: 'شاورما عربي' }),
            makeItem({ id: 'hummus', name: 'Hummus', name_ar: 'حمص' }),
          ],
        },
      ],
    },
  });
  const far = makeStore({
    id: 'far',
    name: 'Shawarma Station',
    name_ar: 'محطة الشاورما',
    location: north(SALMIYA, 20_000),
  });
  const entries = [far, near].map(indexStore);

  it('finds stores and items; items carry their store', () => {
    const r = searchCatalog(entries, { q: 'shawarma', limit: 10 }, NOON_KW);
    expect(r.stores.map((h) => h.store.id)).toEqual(['near', 'far']);
    // Prefix matches, then word-prefix matches; same quality and distance: by name, then store.
    expect(r.items.map((h) => `${h.store.id}/${h.item.id}`)).toEqual([
      'near/platter',
      'near/sold-out',
      'far/chicken-shawarma',
      'near/chicken',
    ]);
  });

  it('ranks sold-out items after available items of the same match quality', () => {
    const r = searchCatalog(entries, { q: 'shawarma', limit: 10 }, NOON_KW);
    const prefixMatches = r.items.filter((h) => h.item.name.startsWith('Shawarma')).map((h) => h.item.id);
    expect(prefixMatches).toEqual(['platter', 'sold-out']);
  });

  it('matches Arabic queries against Arabic names', () => {
    const r = searchCatalog(entries, { q: 'الشاورما', limit: 10 }, NOON_KW);
    expect(r.stores.map((h) => h.store.id)).toEqual(['near', 'far']);
    expect(searchCatalog(entries, { q: 'حمص', limit: 10 }, NOON_KW).items.map((h) => h.item.id)).toEqual(['hummus']);
  });

  it('applies the limit to each result type', () => {
    const r = searchCatalog(entries, { q: 'shawarma', limit: 1 }, NOON_KW);
    expect(r.stores).toHaveLength(1);
    expect(r.items).toHaveLength(1);
  });

  it('with a point, keeps only stores (and their items) that deliver there', () => {
    const r = searchCatalog(entries, { q: 'shawarma', point: SALMIYA, limit: 10 }, NOON_KW);
    expect(r.stores.map((h) => [h.store.id, h.distance_m])).toEqual([['near', 0]]);
    expect(r.items.every((h) => h.store.id === 'near')).toBe(true);
  });
});

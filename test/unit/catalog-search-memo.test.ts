// CatalogIndex.search keeps the text matches of recent queries (BoundedMemo over matchCatalog).
// These tests hold it to the search as it was before the memo: the same hits in the same order,
// for the demo catalog, many queries and points, on the first call and on memo hits.
import { describe, expect, it } from 'vitest';
import { loadDemoCatalog } from '../../src/catalog-data/demo.js';
import { BoundedMemo } from '../../src/domain/catalog/bounded-memo.js';
import { CatalogIndex } from '../../src/domain/catalog/catalog-index.js';
import { distanceMetres, inDeliveryZone } from '../../src/domain/catalog/geo.js';
import type { Point, Store } from '../../src/domain/catalog/model.js';
import { indexStore, type IndexedStore, type SearchQuery } from '../../src/domain/catalog/search.js';
import { storeStatus } from '../../src/domain/catalog/status.js';
import { bestRank, matchForms, requiredFragment } from '../../src/domain/catalog/text.js';

interface Ranked<T> {
  hit: T;
  rank: number;
  distance: number | null;
  name: string;
  id: string;
}
const byName = <T>(a: Ranked<T>, b: Ranked<T>) =>
  (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byRankThenDistance = <T>(a: Ranked<T>, b: Ranked<T>) =>
  a.rank - b.rank || (a.distance ?? 0) - (b.distance ?? 0) || byName(a, b);

/** searchCatalog as it was before the memo (one pass over every store and item), reduced to comparable ids. */
function reference(entries: IndexedStore[], query: SearchQuery, at: Date) {
  const q = matchForms(query.q);
  if (q[0] === '') return { stores: [], items: [] };
  const fragment = requiredFragment(q);
  const stores: Ranked<Store>[] = [];
  const items: Ranked<string>[] = [];
  for (const entry of entries) {
    const { store } = entry;
    let distance: number | null = null;
    if (query.point) {
      distance = distanceMetres(store.location, query.point);
      if (!inDeliveryZone(store, query.point, distance)) continue;
    }
    const storeRank = bestRank(entry.keys, q);
    if (storeRank !== null) stores.push({ hit: store, rank: storeRank, distance, name: entry.sortKey, id: store.id });
    for (const it of entry.items) {
      if (!it.haystack.includes(fragment)) continue;
      const rank = bestRank(it.keys, q);
      if (rank === null) continue;
      const id = `${store.id}/${it.item.id}`;
      items.push({
        hit: `${id}@${distance}/${it.category_id}`,
        rank: rank * 2 + (it.item.available ? 0 : 1),
        distance,
        name: it.sortKey,
        id,
      });
    }
  }
  return {
    stores: stores
      .sort(byRankThenDistance)
      .slice(0, query.limit)
      .map((r) => `${r.hit.id}@${r.distance}:${storeStatus(r.hit, at).status}`),
    items: items
      .sort(byRankThenDistance)
      .slice(0, query.limit)
      .map((r) => r.hit),
  };
}

const comparable = (index: CatalogIndex, query: SearchQuery, at: Date) => {
  const r = index.search(query, at);
  return {
    stores: r.stores.map((h) => `${h.store.id}@${h.distance_m}:${h.status.status}`),
    items: r.items.map((h) => `${h.store.id}/${h.item.id}@${h.distance_m}/${h.category_id}`),
  };
};

const catalog = loadDemoCatalog();
const entries = catalog.stores.map(indexStore);
const names = catalog.stores.flatMap((s) => [
  s.name,
  s.name_ar,
  ...s.menu.categories.flatMap((c) => c.items.flatMap((i) => [i.name, i.name_ar])),
]);
const words = [...new Set(names.flatMap((n) => (n ?? '').split(/\s+/)).filter((w) => w.length >= 2))];
const QUERIES = [
  ...words,
  ...words.map((w) => w.slice(0, 3)),
  ...[...new Set(names)].filter((n): n is string => n !== null).slice(0, 80),
  'shawarma',
  'الشاورما',
  'chicken wrap',
  'wrap chicken',
  "mcdonald's",
  '!!',
  'zz',
  'aa',
  'ال',
  'Shawarma Al Reem',
];
const POINTS: (Point | undefined)[] = [
  undefined,
  { lat: 29.3349, lng: 48.0878 },
  { lat: 25.0805, lng: 55.1403 },
  { lat: 0, lng: 0 },
];
const AT = new Date('2026-11-21T12:00:00Z');

describe('CatalogIndex.search with its text-match memo', () => {
  it(`gives the same hits as the one-pass search for ${QUERIES.length} queries x ${POINTS.length} points, first call and repeated`, () => {
    const index = new CatalogIndex(catalog);
    let compared = 0;
    for (const limit of [10, 50]) {
      for (const point of POINTS) {
        for (const q of QUERIES) {
          const query = { q, point, limit };
          const expected = reference(entries, query, AT);
          expect(comparable(index, query, AT), JSON.stringify(query)).toEqual(expected);
          expect(comparable(index, query, AT), JSON.stringify(query)).toEqual(expected);
          compared += expected.stores.length + expected.items.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(5000); // the queries do find things
  });

  it('when a new catalog is imported, then the new index does not answer from the old matches', () => {
    const before = new CatalogIndex(catalog);
    expect(before.search({ q: 'shawarma', limit: 50 }, AT).items.length).toBeGreaterThan(0);
    const renamed = structuredClone(catalog);
    for (const s of renamed.stores)
      for (const c of s.menu.categories) for (const i of c.items) i.name = i.name.replace(/shawarma/gi, 'Wrap');
    for (const s of renamed.stores) s.name = s.name.replace(/shawarma/gi, 'Grill');
    const after = new CatalogIndex(renamed);
    expect(after.search({ q: 'shawarma', limit: 50 }, AT).items.filter((h) => /shawarma/i.test(h.item.name))).toEqual(
      [],
    );
  });
});

describe('BoundedMemo', () => {
  const memo = () => new BoundedMemo<number[]>({ maxEntries: 3, maxWeight: 10, weigh: (v) => v.length });

  it('when a key is asked again, then the kept answer is returned without computing', () => {
    const m = memo();
    const first = m.get('a', () => [1]);
    expect(m.get('a', () => [2])).toBe(first);
  });

  it('when there are more keys than maxEntries, then the least recently used goes first', () => {
    const m = memo();
    m.get('a', () => [1]);
    m.get('b', () => [1]);
    m.get('c', () => [1]);
    m.get('a', () => [9]); // a is now the most recent
    m.get('d', () => [1]); // evicts b
    expect(m.size()).toEqual({ entries: 3, weight: 3 });
    expect(m.get('a', () => [2])).toEqual([1]);
    expect(m.get('b', () => [2])).toEqual([2]);
  });

  it('when the weight passes maxWeight, then old answers go until it fits, and a too heavy answer is not kept', () => {
    const m = memo();
    m.get('a', () => [1, 1, 1, 1]);
    m.get('b', () => [1, 1, 1, 1]);
    m.get('c', () => [1, 1, 1, 1]); // 12 > 10: a goes
    expect(m.size()).toEqual({ entries: 2, weight: 8 });
    expect(m.get('big', () => new Array(11).fill(0))).toHaveLength(11);
    expect(m.size()).toEqual({ entries: 2, weight: 8 });
  });
});

// SearchBodyWriter writes the search envelope as text, reusing each item's JSON: it must give
// exactly the bytes JSON.stringify gave for the presenter objects, on first use and on reuse.
import { describe, expect, it } from 'vitest';
import { loadDemoCatalog } from '../../src/catalog-data/demo.js';
import { CatalogIndex } from '../../src/domain/catalog/catalog-index.js';
import type { Point } from '../../src/domain/catalog/model.js';
import type { SearchResult } from '../../src/domain/catalog/search.js';
import { toItem, toStoreBrief } from '../../src/http/presenters/catalog.js';
import { SearchBodyWriter } from '../../src/http/presenters/search-body.js';
import { makeItem, makeStore } from './catalog-fixtures.js';

/** How the route built the answer before SearchBodyWriter. */
function expected(index: CatalogIndex, result: SearchResult, at: Date): string {
  return JSON.stringify({
    data: {
      stores: result.stores.map(toStoreBrief),
      items: result.items.map((hit) => ({
        ...toItem(hit.item, hit.category_id, hit.store.currency),
        store: { id: hit.store.id, name: hit.store.name, status: index.status(hit.store, at).status },
      })),
    },
  });
}

const catalog = loadDemoCatalog();
const words = [
  ...new Set(
    catalog.stores
      .flatMap((s) => [s.name, ...s.menu.categories.flatMap((c) => c.items.map((i) => i.name_ar ?? i.name))])
      .flatMap((n) => n.split(' ')),
  ),
];
const POINTS: (Point | undefined)[] = [undefined, { lat: 29.3349, lng: 48.0878 }, { lat: 25.0805, lng: 55.1403 }];

describe('SearchBodyWriter', () => {
  it(`writes the same bytes as JSON.stringify of the presented result, for ${words.length} queries x ${POINTS.length} points at several instants, written twice`, () => {
    const index = new CatalogIndex(catalog);
    const writer = new SearchBodyWriter();
    let items = 0;
    for (const at of ['2026-11-21T12:00:00Z', '2026-11-21T23:30:00Z', '2026-11-27T05:00:00Z'].map((t) => new Date(t))) {
      for (const point of POINTS) {
        for (const q of words) {
          const result = index.search({ q, point, limit: 20 }, at);
          const want = expected(index, result, at);
          expect(writer.body(result, (s) => index.status(s, at))).toBe(want);
          expect(writer.body(result, (s) => index.status(s, at))).toBe(want);
          items += result.items.length;
        }
      }
    }
    expect(items).toBeGreaterThan(1000);
  });

  it('when one item object is shown under another category or currency, then its JSON follows', () => {
    const item = makeItem({ id: 'shared', name: 'Shared Shawarma', price: 1250 });
    const kw = makeStore({ id: 'kw', menu: { categories: [{ id: 'a', name: 'A', name_ar: null, items: [item] }] } });
    const ae = makeStore({
      id: 'ae',
      currency: 'AED',
      menu: { categories: [{ id: 'b', name: 'B', name_ar: null, items: [item] }] },
    });
    const writer = new SearchBodyWriter();
    const at = new Date('2026-11-21T12:00:00Z');
    for (const store of [kw, ae, kw]) {
      const index = new CatalogIndex({ version: 'v', stores: [store], categories: [], offers: [] });
      const result = index.search({ q: 'shawarma', limit: 10 }, at);
      expect(writer.body(result, (s) => index.status(s, at))).toBe(expected(index, result, at));
    }
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CatalogIndex } from '../../src/domain/catalog/catalog-index.js';
import { formatPath, parseCatalog, validateCatalog } from '../../src/domain/catalog/validate.js';
import { makeCatalog, makeItem, makeOffer, makeStore } from './catalog-fixtures.js';

/** A valid catalog as plain JSON, to break in one place per test (hence loosely typed). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function json(): any {
  const catalog = makeCatalog({
    stores: [
      makeStore({ id: 'kw-a', category_ids: ['shawarma'] }),
      makeStore({
        id: 'kw-b',
        menu: {
          categories: [
            { id: 'mains', name: 'Mains', name_ar: null, items: [makeItem({ id: 'x' }), makeItem({ id: 'y' })] },
            {
              id: 'extras',
              name: 'Extras',
              name_ar: null,
              items: [
                makeItem({
                  id: 'z',
                  modifier_groups: [
                    {
                      id: 'size',
                      name: 'Size',
                      required: true,
                      min_select: 1,
                      max_select: 1,
                      options: [
                        { id: 'small', name: 'Small', price: 0 },
                        { id: 'large', name: 'Large', price: 300 },
                      ],
                    },
                  ],
                }),
              ],
            },
          ],
        },
      }),
    ],
    categories: [
      {
        id: 'shawarma',
        name: 'Shawarma',
        name_ar: 'شاورما',
        image_url: 'https://images.example-cdn.com/categories/shawarma.png',
      },
    ],
    offers: [
      makeOffer({ id: 'o1', promo_code: 'WELCOME10' }),
      makeOffer({ id: 'o2', scope: 'store', store_id: 'kw-a' }),
    ],
  });
  return JSON.parse(JSON.stringify(catalog));
}

const problemsOf = (doc: unknown) => {
  const r = validateCatalog(doc);
  if (r.ok) throw new Error('expected problems');
  return r.problems;
};

describe('validateCatalog', () => {
  it('accepts a valid catalog and returns it typed', () => {
    const r = validateCatalog(json());
    expect(r.ok).toBe(true);
    expect(new CatalogIndex(parseCatalog(json())).item('kw-b', 'z')?.modifier_groups[0]?.options).toHaveLength(2);
  });

  it('names the JSON path of every problem, in every store', () => {
    const doc = json();
    doc.stores[1].menu.categories[0].items[1].price = 1.5; // minor units are integers
    doc.stores[1].menu.categories[1].items[0].modifier_groups[0].min_select = 0; // required needs >= 1
    doc.stores[0].time_zone = 'Asia/Atlantis';
    doc.stores[0].delivery_zone = {
      type: 'polygon',
      points: [
        { lat: 29, lng: 48 },
        { lat: 29.1, lng: 48 },
      ],
    };
    doc.stores[0].prce = 3;
    expect(problemsOf(doc)).toEqual(
      expect.arrayContaining([
        { path: 'stores[1].menu.categories[0].items[1].price', message: expect.stringMatching(/int/) },
        {
          path: 'stores[1].menu.categories[1].items[0].modifier_groups[0].min_select',
          message: 'a required group needs min_select >= 1',
        },
        { path: 'stores[0].time_zone', message: 'unknown IANA time zone' },
        { path: 'stores[0].delivery_zone.points', message: 'a polygon needs at least 3 points' },
        { path: 'stores[0].prce', message: 'unknown field' },
      ]),
    );
  });

  it('checks each object: prices, selections, hours, fee rules, urls, currencies', () => {
    const doc = json();
    const item = doc.stores[1].menu.categories[1].items[0];
    item.original_price = item.price; // must be above price
    item.modifier_groups[0].max_select = 0;
    item.modifier_groups[0].options[1].id = 'small';
    doc.stores[0].opening_hours[0].open = '25:00';
    doc.stores[0].delivery_fee_rules = [
      { up_to_m: 3000, fee: 0 },
      { up_to_m: 2000, fee: 500 },
    ];
    doc.stores[0].image_url = 'ftp://images.example-cdn.com/x.jpg';
    doc.stores[0].currency = 'XYZ';
    const paths = problemsOf(doc).map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'stores[1].menu.categories[1].items[0].original_price',
        'stores[1].menu.categories[1].items[0].modifier_groups[0].max_select',
        'stores[1].menu.categories[1].items[0].modifier_groups[0].options[1].id',
        'stores[0].opening_hours[0].open',
        'stores[0].delivery_fee_rules[1].up_to_m',
        'stores[0].image_url',
        'stores[0].currency',
      ]),
    );
  });

  it('finds repeated ids: items within a store, stores, offers, promo codes (ignoring case)', () => {
    const doc = json();
    doc.stores[1].menu.categories[1].items[0].id = 'x';
    expect(problemsOf(doc)).toEqual([
      { path: 'stores[1].menu.categories[1].items[0].id', message: 'item id repeated within the store: x' },
    ]);

    const cross = json();
    cross.stores[1].id = 'kw-a';
    cross.offers[1].id = 'o1';
    cross.offers[1].promo_code = 'welcome10';
    expect(problemsOf(cross).map((p) => p.path)).toEqual(['stores[1].id', 'offers[1].id', 'offers[1].promo_code']);
  });

  it('checks references and offer rules', () => {
    const doc = json();
    doc.stores[0].category_ids = ['pizza'];
    doc.offers[1].store_id = 'kw-missing';
    expect(problemsOf(doc)).toEqual([
      { path: 'stores[0].category_ids[0]', message: 'unknown category: pizza' },
      { path: 'offers[1].store_id', message: 'unknown store: kw-missing' },
    ]);

    const offers = json();
    offers.offers[0] = { ...offers.offers[0], kind: 'fixed', currency: null, ends_at: '2019-01-01T00:00:00Z' };
    expect(
      problemsOf(offers)
        .map((p) => p.path)
        .sort(),
    ).toEqual(['offers[0].amount', 'offers[0].currency', 'offers[0].ends_at', 'offers[0].percent_bp']);

    const wrongCurrency = json();
    wrongCurrency.offers[1].currency = 'AED';
    expect(problemsOf(wrongCurrency)).toEqual([
      { path: 'offers[1].currency', message: 'store kw-a prices in KWD, not AED' },
    ]);
  });

  it('reports a document that is not a catalog at all from its root', () => {
    expect(problemsOf([])).toEqual([{ path: '(root)', message: expect.any(String) }]);
    expect(problemsOf({ version: 'x', stores: 'none', categories: [], offers: [] })).toEqual([
      { path: 'stores', message: expect.any(String) },
    ]);
  });

  it('parseCatalog throws with the first problems in the message', () => {
    const doc = json();
    doc.stores[0].currency = 'XYZ';
    expect(() => parseCatalog(doc)).toThrow(/stores\[0\]\.currency/);
  });
});

describe('formatPath', () => {
  it('writes arrays as [i] and fields with dots', () => {
    expect(formatPath(['stores', 3, 'menu', 'categories', 0, 'items', 2, 'price'])).toBe(
      'stores[3].menu.categories[0].items[2].price',
    );
    expect(formatPath([])).toBe('(root)');
  });
});

describe('docs/catalog.md', () => {
  it('its import file example is a valid catalog', () => {
    const doc = readFileSync(new URL('../../docs/catalog.md', import.meta.url), 'utf8');
    const example = /## Import file format[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const r = validateCatalog(JSON.parse(example!));
    expect(r.ok ? [] : r.problems).toEqual([]);
  });
});

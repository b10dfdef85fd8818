// A small catalog for the catalog HTTP tests: every fact the tests assert is visible here.
import type { Catalog, Item, Offer, Store } from '../../src/domain/catalog/model.js';
import { makeItem, makeOffer, makeStore, north, SALMIYA } from '../unit/catalog-fixtures.js';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';

export { SALMIYA, north };
export const DUBAI_MARINA = { lat: 25.0805, lng: 55.1403 };

const ALWAYS = (['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const).map((day) => ({
  day,
  open: '00:00',
  close: '00:00',
}));
const img = (id: string) => `https://images.example-cdn.com/items/${id}.jpg`;
const item = (id: string, name: string, price: number, extra: Partial<Item> = {}) =>
  makeItem({ id, name, name_ar: null, image_url: img(id), price, ...extra });

const reem = makeStore({
  id: 'kw-shawarma-reem',
  name: 'Shawarma Al Reem',
  name_ar: 'شاورما الريم',
  opening_hours: ALWAYS,
  category_ids: ['shawarma'],
  closures: [
    { date: '2026-01-01', reason: 'New Year' },
    { date: '2027-02-25', reason: 'National Day' },
  ],
  menu: {
    categories: [
      {
        id: 'wraps',
        name: 'Wraps',
        name_ar: 'سندويشات',
        items: [
          item('chicken-shawarma', 'Chicken Shawarma', 650, {
            name_ar: 'شاورما دجاج',
            modifier_groups: [
              {
                id: 'size',
                name: 'Size',
                required: true,
                min_select: 1,
                max_select: 1,
                options: [
                  { id: 'regular', name: 'Regular', price: 0 },
                  { id: 'large', name: 'Large', name_ar: 'كبير', price: 300 },
                ],
              },
              {
                id: 'extras',
                name: 'Extras',
                required: false,
                min_select: 0,
                max_select: null,
                options: [{ id: 'toum', name: 'Extra toum', price: 100 }],
              },
            ],
          }),
          item('family-platter', 'Family Platter', 1250, { original_price: 1500 }),
          item('lamb-shawarma', 'Lamb Shawarma', 800, { available: false }),
        ],
      },
    ],
  },
});

const burgerMenu = (items: Item[]) => ({ categories: [{ id: 'burgers', name: 'Burgers', name_ar: null, items }] });

const stores: Store[] = [
  reem,
  makeStore({
    id: 'kw-burger-lab',
    name: 'Burger Lab',
    name_ar: 'مختبر البرجر',
    location: north(SALMIYA, 1000),
    opening_hours: ALWAYS,
    busy: true,
    delivery_zone: { type: 'radius', radius_m: 3000 },
    category_ids: ['burgers'],
    menu: burgerMenu([item('burger', 'Burger', 1500), item('double-cheeseburger', 'Double Cheeseburger', 2250)]),
  }),
  makeStore({
    id: 'kw-classic-burgers',
    name: 'Classic Burgers',
    name_ar: null,
    location: north(SALMIYA, 2000),
    opening_hours: [...ALWAYS].reverse(), // listed Sunday first in the file
    delivery_zone: { type: 'radius', radius_m: 4000 },
    category_ids: ['burgers'],
    menu: burgerMenu([item('burger-meal', 'Burger Meal', 1900), item('smash-burger', 'Smash Burger', 1700)]),
  }),
  makeStore({
    id: 'kw-cheeseburger-corner',
    name: 'Cheeseburger Corner',
    name_ar: null,
    location: north(SALMIYA, 8000),
    opening_hours: ALWAYS,
    category_ids: ['burgers'],
    menu: burgerMenu([item('fries', 'Fries', 500)]),
  }),
  makeStore({
    id: 'kw-salmiya-pharmacy',
    name: 'Salmiya Pharmacy',
    name_ar: 'صيدلية السالمية',
    vertical: 'pharmacy',
    location: north(SALMIYA, 500),
    opening_hours: [], // closed whatever the time
    delivery_zone: {
      type: 'polygon',
      points: [
        { lat: SALMIYA.lat - 0.01, lng: SALMIYA.lng - 0.01 },
        { lat: SALMIYA.lat + 0.02, lng: SALMIYA.lng - 0.01 },
        { lat: SALMIYA.lat + 0.02, lng: SALMIYA.lng + 0.01 },
        { lat: SALMIYA.lat - 0.01, lng: SALMIYA.lng + 0.01 },
      ],
    },
    category_ids: ['pharmacy'],
    menu: { categories: [{ id: 'care', name: 'Care', name_ar: null, items: [item('panadol', 'Panadol 500mg', 850)] }] },
  }),
  ...(['ae-reef-bakery', 'ae-marina-grocer'] as const).map((id, i) =>
    makeStore({
      id,
      name: i === 0 ? 'Al Reef Bakery' : 'Marina Grocer',
      name_ar: i === 0 ? 'مخبز الريف' : null,
      vertical: i === 0 ? 'restaurant' : 'grocery',
      location: north(DUBAI_MARINA, i * 700),
      address: { line1: 'Marina Walk', area: 'Dubai Marina', city: 'Dubai', country: 'AE' },
      time_zone: 'Asia/Dubai',
      opening_hours: ALWAYS,
      currency: 'AED',
      minimum_order: 3000,
      delivery_fee_rules: [{ up_to_m: 5000, fee: 799 }],
      menu: {
        categories: [
          {
            id: 'bakes',
            name: 'Bakes',
            name_ar: null,
            items: [
              item(`${id}-manakish`, 'Zaatar Manakish', 1250, {
                original_price: 1500,
                modifier_groups: [
                  {
                    id: 'cheese',
                    name: 'Cheese',
                    required: false,
                    min_select: 0,
                    max_select: 1,
                    options: [{ id: `${id}-akkawi`, name: 'Akkawi', price: 350 }],
                  },
                ],
              }),
              item(`${id}-box`, 'Breakfast Box', 2599),
            ],
          },
        ],
      },
    }),
  ),
];

const offer = (id: string, o: Partial<Offer>) => makeOffer({ id, title: id, ...o });
const offers: Offer[] = [
  offer('off-reem-10', { scope: 'store', store_id: 'kw-shawarma-reem', kind: 'percent', percent_bp: 1000 }),
  offer('off-reem-code', {
    scope: 'store',
    store_id: 'kw-shawarma-reem',
    kind: 'fixed',
    percent_bp: undefined,
    amount: 500,
    min_subtotal: 3000,
    promo_code: 'REEM500',
  }),
  offer('off-burger-code', {
    scope: 'store',
    store_id: 'kw-burger-lab',
    kind: 'fixed',
    percent_bp: undefined,
    amount: 100,
    promo_code: 'BURGER1',
  }),
  offer('off-kw-free-delivery', {
    kind: 'free_delivery',
    percent_bp: undefined,
    currency: null,
    cities: ['Kuwait City'],
  }),
  offer('off-freedel-code', { kind: 'free_delivery', percent_bp: undefined, promo_code: 'FREEDEL' }),
  offer('off-dubai', {
    percent_bp: 1250,
    currency: 'AED',
    min_subtotal: 4000,
    max_discount: 2000,
    promo_code: 'DUBAI15',
    cities: ['Dubai'],
  }),
  offer('off-expired', { promo_code: 'OLD2020', starts_at: '2020-01-01T00:00:00Z', ends_at: '2021-01-01T00:00:00Z' }),
  offer('off-future', { promo_code: 'FUTURE2099', starts_at: '2099-01-01T00:00:00Z', ends_at: '2099-12-31T00:00:00Z' }),
];

export function httpCatalog(): Catalog {
  return {
    version: 'http-test-1',
    stores,
    categories: [
      {
        id: 'shawarma',
        name: 'Shawarma',
        name_ar: 'شاورما',
        image_url: 'https://images.example-cdn.com/categories/shawarma.png',
      },
      {
        id: 'burgers',
        name: 'Burgers',
        name_ar: 'برجر',
        image_url: 'https://images.example-cdn.com/categories/burgers.png',
      },
      {
        id: 'pharmacy',
        name: 'Pharmacy',
        name_ar: null,
        image_url: 'https://images.example-cdn.com/categories/pharmacy.png',
      },
    ],
    offers,
  };
}

/** A running service serving httpCatalog(), and a partner whose keys carry every scope. */
export async function startCatalogService(): Promise<{
  t: TestService;
  p: TestPartner;
  get: (url: string) => ReturnType<TestService['http']['get']>;
}> {
  const t = await startTestService();
  await t.service.services.catalog.import(httpCatalog());
  const p = await t.partner();
  return { t, p, get: (url: string) => t.http.get(url).set(bearer(p.live)) };
}

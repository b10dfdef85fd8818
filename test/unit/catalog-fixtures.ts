// Small, valid catalog pieces for the catalog unit tests; each test overrides what it examines.
import type { Catalog, Item, Offer, Store } from '../../src/domain/catalog/model.js';

export const SALMIYA = { lat: 29.3339, lng: 48.0761 };

/** Metres north of a point, as a point (1 degree of latitude is 111,195 m on the mean sphere). */
export function north(from: { lat: number; lng: number }, metres: number): { lat: number; lng: number } {
  return { lat: from.lat + metres / 111_195, lng: from.lng };
}

export function makeItem(overrides: Partial<Item> = {}): Item {
  return {
    id: 'chicken-shawarma',
    name: 'Chicken Shawarma',
    name_ar: 'شاورما دجاج',
    description: 'Chicken, toum, pickles.',
    description_ar: null,
    image_url: 'https://images.example-cdn.com/items/chicken-shawarma.jpg',
    price: 650,
    original_price: null,
    available: true,
    modifier_groups: [],
    ...overrides,
  };
}

export function makeStore(overrides: Partial<Store> = {}): Store {
  return {
    id: 'kw-test',
    name: 'Test Kitchen',
    name_ar: 'مطبخ التجربة',
    vertical: 'restaurant',
    description: 'A test store.',
    description_ar: null,
    image_url: 'https://images.example-cdn.com/stores/kw-test.jpg',
    location: SALMIYA,
    address: { line1: 'Salem Al Mubarak St', area: 'Salmiya', city: 'Kuwait City', country: 'KW' },
    time_zone: 'Asia/Kuwait',
    opening_hours: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({
      day: day as 'mon',
      open: '10:00',
      close: '23:00',
    })),
    closures: [],
    snoozed_until: null,
    busy: false,
    accepting_orders: true,
    auto_accept: false,
    delivery_zone: { type: 'radius', radius_m: 5000 },
    delivery_fee_rules: [
      { up_to_m: 2000, fee: 250 },
      { up_to_m: 5000, fee: 500 },
    ],
    minimum_order: 2000,
    currency: 'KWD',
    prep_time_min: 15,
    category_ids: [],
    menu: { categories: [{ id: 'mains', name: 'Mains', name_ar: 'الرئيسية', items: [makeItem()] }] },
    ...overrides,
  };
}

export function makeOffer(overrides: Partial<Offer> = {}): Offer {
  return {
    id: 'off-test',
    scope: 'platform',
    title: 'Test offer',
    title_ar: null,
    kind: 'percent',
    percent_bp: 1000,
    currency: 'KWD',
    min_subtotal: 0,
    max_discount: null,
    starts_at: '2020-01-01T00:00:00Z',
    ends_at: '2099-12-31T23:59:59Z',
    promo_code: null,
    ...overrides,
  };
}

export function makeCatalog(overrides: Partial<Catalog> = {}): Catalog {
  return { version: 'test-1', stores: [makeStore()], categories: [], offers: [], ...overrides };
}

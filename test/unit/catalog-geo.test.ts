import { describe, expect, it } from 'vitest';
import {
  BUSY_EXTRA_MIN,
  deliveryFee,
  deliveryQuote,
  distanceMetres,
  inDeliveryZone,
  pointInPolygon,
} from '../../src/domain/catalog/geo.js';
import { indexStore, listStores } from '../../src/domain/catalog/search.js';
import { makeStore, north, SALMIYA } from './catalog-fixtures.js';

const NOON_KW = new Date('2026-11-23T09:00:00Z');

describe('distanceMetres', () => {
  it('measures great-circle metres, rounded to whole metres', () => {
    expect(distanceMetres({ lat: 0, lng: 0 }, { lat: 1, lng: 0 })).toBe(111_195);
    expect(distanceMetres(SALMIYA, SALMIYA)).toBe(0);
    expect(distanceMetres(SALMIYA, north(SALMIYA, 2500))).toBe(2500);
  });

  it('is symmetric and gets city-to-city distances right (Kuwait City to Dubai is about 850 km)', () => {
    const kuwaitTowers = { lat: 29.3897, lng: 48.003 };
    const burjKhalifa = { lat: 25.1972, lng: 55.2744 };
    const d = distanceMetres(kuwaitTowers, burjKhalifa);
    expect(d).toBe(distanceMetres(burjKhalifa, kuwaitTowers));
    expect(d).toBeGreaterThan(845_000);
    expect(d).toBeLessThan(860_000);
  });
});

describe('pointInPolygon', () => {
  const square = [
    { lat: 0, lng: 0 },
    { lat: 0, lng: 1 },
    { lat: 1, lng: 1 },
    { lat: 1, lng: 0 },
  ];
  // An L shape: the square minus its upper-right quarter.
  const ell = [
    { lat: 0, lng: 0 },
    { lat: 0, lng: 1 },
    { lat: 0.5, lng: 1 },
    { lat: 0.5, lng: 0.5 },
    { lat: 1, lng: 0.5 },
    { lat: 1, lng: 0 },
  ];

  it('finds points inside and outside a convex polygon', () => {
    expect(pointInPolygon({ lat: 0.5, lng: 0.5 }, square)).toBe(true);
    expect(pointInPolygon({ lat: 1.5, lng: 0.5 }, square)).toBe(false);
    expect(pointInPolygon({ lat: 0.5, lng: -0.1 }, square)).toBe(false);
  });

  it('leaves out the notch of a concave polygon', () => {
    expect(pointInPolygon({ lat: 0.25, lng: 0.75 }, ell)).toBe(true);
    expect(pointInPolygon({ lat: 0.75, lng: 0.25 }, ell)).toBe(true);
    expect(pointInPolygon({ lat: 0.75, lng: 0.75 }, ell)).toBe(false);
  });
});

describe('delivery zone', () => {
  it('radius: in up to the radius, out beyond it', () => {
    const store = makeStore({ delivery_zone: { type: 'radius', radius_m: 5000 } });
    expect(inDeliveryZone(store, north(SALMIYA, 4900))).toBe(true);
    expect(inDeliveryZone(store, north(SALMIYA, 5000))).toBe(true);
    expect(inDeliveryZone(store, north(SALMIYA, 5100))).toBe(false);
  });

  it('polygon: uses the shape, not the distance', () => {
    const d = 0.02; // about 2 km
    const store = makeStore({
      delivery_zone: {
        type: 'polygon',
        points: [
          { lat: SALMIYA.lat - d, lng: SALMIYA.lng - d },
          { lat: SALMIYA.lat - d, lng: SALMIYA.lng + d },
          { lat: SALMIYA.lat + d, lng: SALMIYA.lng + d },
          { lat: SALMIYA.lat + d, lng: SALMIYA.lng - d },
        ],
      },
    });
    expect(inDeliveryZone(store, north(SALMIYA, 1500))).toBe(true);
    expect(inDeliveryZone(store, north(SALMIYA, 2500))).toBe(false);
  });
});

describe('deliveryFee', () => {
  const store = makeStore({
    delivery_fee_rules: [
      { up_to_m: 2000, fee: 0 },
      { up_to_m: 5000, fee: 500 },
      { up_to_m: 8000, fee: 750 },
    ],
  });

  it('takes the first rule whose up_to_m covers the distance (bounds inclusive)', () => {
    expect(deliveryFee(store, 0)).toBe(0);
    expect(deliveryFee(store, 2000)).toBe(0);
    expect(deliveryFee(store, 2001)).toBe(500);
    expect(deliveryFee(store, 8000)).toBe(750);
  });

  it('past the last rule, charges the last fee', () => {
    expect(deliveryFee(store, 12_000)).toBe(750);
  });
});

describe('deliveryQuote', () => {
  it('inside the zone: distance, fee, currency, minimum and an estimate', () => {
    const store = makeStore({ prep_time_min: 15 });
    expect(deliveryQuote(store, north(SALMIYA, 3330), NOON_KW)).toEqual({
      store_id: 'kw-test',
      in_zone: true,
      distance_m: 3330,
      delivery_fee: 500,
      currency: 'KWD',
      minimum_order: 2000,
      estimated_minutes: 15 + 10 + 5,
      store_status: 'open',
      accepting_orders: true,
    });
  });

  it('outside the zone: an answer with in_zone false and no fee or estimate', () => {
    const q = deliveryQuote(makeStore(), north(SALMIYA, 9000), NOON_KW);
    expect(q).toMatchObject({ in_zone: false, distance_m: 9000, delivery_fee: null, estimated_minutes: null });
  });

  it('a busy kitchen adds to the estimate', () => {
    const calm = deliveryQuote(makeStore(), north(SALMIYA, 1000), NOON_KW);
    const busy = deliveryQuote(makeStore({ busy: true }), north(SALMIYA, 1000), NOON_KW);
    expect(busy.estimated_minutes! - calm.estimated_minutes!).toBe(BUSY_EXTRA_MIN);
    expect(busy.store_status).toBe('busy');
  });
});

describe('stores near a point', () => {
  const stores = [
    makeStore({ id: 'far', name: 'Far', location: north(SALMIYA, 3000) }),
    makeStore({ id: 'near', name: 'Near', location: north(SALMIYA, 500) }),
    makeStore({ id: 'middle', name: 'Middle', location: north(SALMIYA, -1500) }),
    makeStore({
      id: 'small-zone',
      name: 'Small Zone',
      location: north(SALMIYA, 1000),
      delivery_zone: { type: 'radius', radius_m: 800 },
    }),
  ].map(indexStore);

  it('lists only stores delivering there, nearest first, each with its distance', () => {
    const page = listStores(stores, { point: SALMIYA, page: 1, limit: 10 }, NOON_KW);
    expect(page.data.map((h) => [h.store.id, h.distance_m])).toEqual([
      ['near', 500],
      ['middle', 1500],
      ['far', 3000],
    ]);
  });

  it('without a point, distance is null and every store is listed', () => {
    const page = listStores(stores, { page: 1, limit: 10 }, NOON_KW);
    expect(page.total).toBe(4);
    expect(page.data.every((h) => h.distance_m === null)).toBe(true);
  });
});

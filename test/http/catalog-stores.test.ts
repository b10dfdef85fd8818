import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { DUBAI_MARINA, north, SALMIYA, startCatalogService } from './catalog-fixture.js';

let t: TestService;
let get: (url: string) => ReturnType<TestService['http']['get']>;

beforeAll(async () => {
  ({ t, get } = await startCatalogService());
});
afterAll(() => t.close());

const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((s) => s.id);
const at = (p: { lat: number; lng: number }) => `lat=${p.lat}&lng=${p.lng}`;

describe('GET /v1/stores: parameter bounds', () => {
  it.each([
    ['lat=-90.5&lng=48', 'lat'],
    ['lat=91&lng=48', 'lat'],
    ['lat=abc&lng=48', 'lat'],
    ['lat=&lng=48', 'lat'],
    ['lat=29&lng=180.5', 'lng'],
    ['lat=29&lng=-181', 'lng'],
    ['lat=29', 'lng'],
    ['lng=48', 'lat'],
    [`q=${'a'.repeat(81)}`, 'q'],
    ['q=a&q=b', 'q'],
    ['vertical=bakery', 'vertical'],
    ['status=shut', 'status'],
    ['page=0', 'page'],
    ['page=1.5', 'page'],
    ['page=x', 'page'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=5&limit=6', 'limit'],
    ['sort=name', 'sort'],
  ])('when the query is %s, then 400 validation_error naming %s', async (query, param) => {
    const res = await get(`/v1/stores?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param });
  });

  it.each([
    'lat=-90&lng=-180',
    'lat=90&lng=180',
    `q=${'a'.repeat(80)}`,
    'page=1',
    'limit=1',
    'limit=100',
    'vertical=grocery',
    'status=busy',
  ])('when the query is the bound %s, then 200', async (query) => {
    expect((await get(`/v1/stores?${query}`)).status).toBe(200);
  });
});

describe('GET /v1/stores: listing', () => {
  it('when no parameter is sent, then the first 20 stores and a pagination object', async () => {
    const res = await get('/v1/stores');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 7, has_more: false });
    const reem = res.body.data.find((s: { id: string }) => s.id === 'kw-shawarma-reem');
    expect(reem).toEqual({
      id: 'kw-shawarma-reem',
      object: 'store',
      name: 'Shawarma Al Reem',
      name_ar: 'شاورما الريم',
      vertical: 'restaurant',
      status: 'open',
      accepting_orders: true,
      opens_at: null,
      image_url: 'https://images.example-cdn.com/stores/kw-test.jpg',
      address: { area: 'Salmiya', city: 'Kuwait City' },
      currency: 'KWD',
      minimum_order: 2,
      prep_time_min: 15,
      category_ids: ['shawarma'],
    });
  });

  it('when pages of 3 are walked, then every store appears once, the last page says has_more false, and a page past the end is empty', async () => {
    const pages = await Promise.all([1, 2, 3, 4].map((page) => get(`/v1/stores?limit=3&page=${page}`)));
    expect(pages.map((r) => r.body.pagination)).toEqual([
      { page: 1, limit: 3, total: 7, has_more: true },
      { page: 2, limit: 3, total: 7, has_more: true },
      { page: 3, limit: 3, total: 7, has_more: false },
      { page: 4, limit: 3, total: 7, has_more: false },
    ]);
    expect(pages.map((r) => r.body.data.length)).toEqual([3, 3, 1, 0]);
    const all = pages.flatMap(ids);
    expect(new Set(all).size).toBe(7);
  });

  it('when lat and lng are sent, then only stores delivering there, nearest first, each with distance, fee and estimate', async () => {
    const res = await get(`/v1/stores?${at(SALMIYA)}`);
    expect(ids(res)).toEqual(['kw-shawarma-reem', 'kw-salmiya-pharmacy', 'kw-burger-lab', 'kw-classic-burgers']);
    const distances = res.body.data.map((s: { distance_m: number }) => s.distance_m);
    expect(distances).toEqual([0, 500, 1000, 2000]);
    // Burger Lab is 1000 m away: first fee band (0.25 KWD); busy adds 15 minutes.
    expect(res.body.data[2]).toMatchObject({ delivery_fee: 0.25, estimated_minutes: 15 + 15 + 4 + 5, status: 'busy' });
    expect(res.body.pagination.total).toBe(4);
  });

  it('when no point is sent, then the brief has no distance fields', async () => {
    const res = await get('/v1/stores?q=reem');
    expect(res.body.data[0]).not.toHaveProperty('distance_m');
    expect(res.body.data[0]).not.toHaveProperty('delivery_fee');
  });

  it('when q is given in another case or in Arabic, then names match either way', async () => {
    expect(ids(await get('/v1/stores?q=BURGER%20lab'))).toEqual(['kw-burger-lab']);
    expect(ids(await get(`/v1/stores?q=${encodeURIComponent('الريم')}`))).toEqual(['kw-shawarma-reem']);
    expect(ids(await get(`/v1/stores?q=${encodeURIComponent('صيدلية')}`))).toEqual(['kw-salmiya-pharmacy']);
  });

  it('when q matches several names, then exact and prefix matches come before word and substring matches', async () => {
    expect(ids(await get('/v1/stores?q=burger'))).toEqual([
      'kw-burger-lab',
      'kw-classic-burgers',
      'kw-cheeseburger-corner',
    ]);
  });

  it('when vertical and status filter, then only matching stores', async () => {
    expect(ids(await get('/v1/stores?vertical=pharmacy'))).toEqual(['kw-salmiya-pharmacy']);
    expect(ids(await get('/v1/stores?status=closed'))).toEqual(['kw-salmiya-pharmacy']);
    expect(ids(await get('/v1/stores?status=busy'))).toEqual(['kw-burger-lab']);
  });
});

describe('GET /v1/stores/{store_id}', () => {
  it('when the store exists, then the full record with hours, upcoming closures, zone and fees in major units', async () => {
    const res = await get('/v1/stores/kw-shawarma-reem');
    expect(res.status).toBe(200);
    const s = res.body.data;
    expect(s).toMatchObject({
      id: 'kw-shawarma-reem',
      object: 'store',
      status: 'open',
      closed_reason: null,
      busy: false,
      snoozed_until: null,
      minimum_order: 2,
    });
    expect(s.location).toEqual(SALMIYA);
    expect(s.address).toEqual({ line1: 'Salem Al Mubarak St', area: 'Salmiya', city: 'Kuwait City', country: 'KW' });
    expect(s.opening_hours.time_zone).toBe('Asia/Kuwait');
    expect(s.opening_hours.weekly).toHaveLength(7);
    expect(s.opening_hours.closures).toEqual([{ date: '2027-02-25', reason: 'National Day' }]);
    expect(s.delivery).toEqual({
      zone: { type: 'radius', radius_m: 5000 },
      fees: [
        { up_to_m: 2000, fee: 0.25 },
        { up_to_m: 5000, fee: 0.5 },
      ],
    });
  });

  it('when the file lists the week in another order, then weekly spans are served Monday first', async () => {
    const s = (await get('/v1/stores/kw-classic-burgers')).body.data;
    expect(s.opening_hours.weekly.map((w: { day: string }) => w.day)).toEqual([
      'mon',
      'tue',
      'wed',
      'thu',
      'fri',
      'sat',
      'sun',
    ]);
    expect(s.opening_hours.weekly[0]).toEqual({ day: 'mon', open: '00:00', close: '00:00' });
  });

  it('when the store is closed whatever the time, then closed_reason says why and opens_at is null', async () => {
    const s = (await get('/v1/stores/kw-salmiya-pharmacy')).body.data;
    expect(s).toMatchObject({
      status: 'closed',
      accepting_orders: false,
      closed_reason: 'outside_hours',
      opens_at: null,
    });
    expect(s.delivery.zone.type).toBe('polygon');
    expect(s.delivery.zone.points).toHaveLength(4);
  });

  it('when the store is unknown, then 404 store_not_found', async () => {
    const res = await get('/v1/stores/kw-nope');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('store_not_found');
  });

  it('when an unknown query parameter is sent, then 400 naming it', async () => {
    const res = await get('/v1/stores/kw-shawarma-reem?expand=menu');
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('expand');
  });

  it("when the document's `point` parameter is sent by its name, then 400 saying it goes as lat and lng", async () => {
    const res = await get('/v1/stores?point=29.3,48.0');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      param: 'point',
      message:
        "point is not a query parameter of this endpoint: the document's point is sent as lat and lng (lat=29.3349&lng=48.0878).",
    });
    // Where the endpoint takes no point, `point` is an unknown parameter like any other.
    const categories = await get('/v1/categories?point=1');
    expect(categories.body.error.message).toBe('point is not a query parameter of this endpoint.');
  });
});

describe('GET /v1/stores/{store_id}/menu and /items/{item_id}', () => {
  it('when a KWD menu is read, then prices have up to 3 decimals, with originals, availability and modifier groups', async () => {
    const res = await get('/v1/stores/kw-shawarma-reem/menu');
    expect(res.status).toBe(200);
    const menu = res.body.data;
    expect(menu.store).toEqual({
      id: 'kw-shawarma-reem',
      name: 'Shawarma Al Reem',
      name_ar: 'شاورما الريم',
      status: 'open',
      accepting_orders: true,
    });
    expect(menu.currency).toBe('KWD');
    const [wrap, platter, lamb] = menu.categories[0].items;
    expect(wrap).toMatchObject({
      id: 'chicken-shawarma',
      object: 'item',
      category_id: 'wraps',
      price: 0.65,
      original_price: null,
      available: true,
      currency: 'KWD',
    });
    expect(wrap.modifier_groups[0]).toEqual({
      id: 'size',
      name: 'Size',
      name_ar: null,
      required: true,
      min_select: 1,
      max_select: 1,
      options: [
        { id: 'regular', name: 'Regular', name_ar: null, price: 0 },
        { id: 'large', name: 'Large', name_ar: 'كبير', price: 0.3 },
      ],
    });
    expect(wrap.modifier_groups[1]).toMatchObject({ required: false, min_select: 0, max_select: null });
    expect(platter).toMatchObject({ price: 1.25, original_price: 1.5 });
    expect(lamb.available).toBe(false);
    expect(res.text).toContain('"price":0.65,');
  });

  it('when an AED menu is read, then prices have up to 2 decimals', async () => {
    const menu = (await get('/v1/stores/ae-reef-bakery/menu')).body.data;
    expect(menu.currency).toBe('AED');
    const [manakish, box] = menu.categories[0].items;
    expect(manakish).toMatchObject({ price: 12.5, original_price: 15, currency: 'AED' });
    expect(manakish.modifier_groups[0].options[0].price).toBe(3.5);
    expect(box.price).toBe(25.99);
  });

  it('when one item is read, then it has the same shape as in the menu', async () => {
    const res = await get('/v1/stores/kw-shawarma-reem/items/chicken-shawarma');
    expect(res.status).toBe(200);
    const menu = (await get('/v1/stores/kw-shawarma-reem/menu')).body.data;
    expect(res.body.data).toEqual(menu.categories[0].items[0]);
  });

  it.each([
    ['/v1/stores/kw-nope/menu', 'store_not_found'],
    ['/v1/stores/kw-nope/items/chicken-shawarma', 'store_not_found'],
    ['/v1/stores/kw-shawarma-reem/items/nope', 'item_not_found'],
    ['/v1/stores/kw-burger-lab/items/chicken-shawarma', 'item_not_found'],
  ])('when %s is read, then 404 %s', async (url, code) => {
    const res = await get(url);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe(code);
  });
});

describe('GET /v1/stores/{store_id}/delivery-quote', () => {
  it('when the point is inside a radius zone, then distance, fee, estimate and the store state', async () => {
    const res = await get(`/v1/stores/kw-shawarma-reem/delivery-quote?${at(north(SALMIYA, 3000))}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      object: 'delivery_quote',
      store_id: 'kw-shawarma-reem',
      location: north(SALMIYA, 3000),
      in_zone: true,
      distance_m: 3000,
      delivery_fee: 0.5,
      currency: 'KWD',
      minimum_order: 2,
      estimated_minutes: 15 + 10 + 5,
      store_status: 'open',
      accepting_orders: true,
      // A quote an order can hold for 10 minutes (test/http/orders-quotes.test.ts).
      id: expect.stringMatching(/^quo_[A-Za-z0-9_-]+$/),
      expires_at: '2026-11-21T12:10:00.000Z',
    });
  });

  it('when the point is outside the zone, then 200 with in_zone false and no fee or estimate', async () => {
    const res = await get(`/v1/stores/kw-shawarma-reem/delivery-quote?${at(north(SALMIYA, 6000))}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      in_zone: false,
      distance_m: 6000,
      delivery_fee: null,
      estimated_minutes: null,
    });
  });

  it('when the store has a polygon zone, then points inside and outside it are told apart', async () => {
    const inside = await get(`/v1/stores/kw-salmiya-pharmacy/delivery-quote?${at(SALMIYA)}`);
    expect(inside.body.data).toMatchObject({ in_zone: true, store_status: 'closed', accepting_orders: false });
    const outside = await get(`/v1/stores/kw-salmiya-pharmacy/delivery-quote?${at(north(SALMIYA, 4000))}`);
    expect(outside.body.data.in_zone).toBe(false);
  });

  it('when the point is in Dubai, then an AED store quotes its fee in AED', async () => {
    const res = await get(`/v1/stores/ae-reef-bakery/delivery-quote?${at(DUBAI_MARINA)}`);
    expect(res.body.data).toMatchObject({ in_zone: true, delivery_fee: 7.99, currency: 'AED', minimum_order: 30 });
  });

  it.each([
    ['', 'lat'],
    ['lat=29.3', 'lng'],
    ['lng=48', 'lat'],
    ['lat=95&lng=48', 'lat'],
    ['lat=29&lng=200', 'lng'],
  ])('when the query is "%s", then 400 naming %s', async (query, param) => {
    const res = await get(`/v1/stores/kw-shawarma-reem/delivery-quote?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it('when the store is unknown, then 404 store_not_found', async () => {
    const res = await get(`/v1/stores/kw-nope/delivery-quote?${at(SALMIYA)}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('store_not_found');
  });
});

describe('GET /v1/stores/{store_id}/menu: compression', () => {
  const menu = (acceptEncoding: string) =>
    get('/v1/stores/kw-shawarma-reem/menu').set('Accept-Encoding', acceptEncoding);

  it('when the client accepts gzip, then the same JSON comes gzipped and smaller, and the answer varies on Accept-Encoding', async () => {
    const plain = await menu('identity');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(plain.headers['content-length'])).toBe(Buffer.byteLength(plain.text));
    for (const accepted of ['gzip', 'gzip, deflate, br', 'br;q=1, gzip;q=0.5']) {
      const gzipped = await menu(accepted);
      expect(gzipped.status).toBe(200);
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.headers.vary).toMatch(/accept-encoding/i);
      expect(gzipped.headers['content-type']).toBe(plain.headers['content-type']);
      expect(Number(gzipped.headers['content-length'])).toBeLessThan(Buffer.byteLength(plain.text) / 2);
      expect(gzipped.text).toBe(plain.text); // decoded by the client: the same bytes
    }
  });

  it.each(['identity', 'br', 'gzip;q=0, identity', 'deflate'])(
    'when Accept-Encoding is %s, then the menu is sent as is',
    async (accepted) => {
      const res = await menu(accepted);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.body.data.store.id).toBe('kw-shawarma-reem');
    },
  );
});

// GET /v1/stores/{id}/menu serves a cached serialisation (MenuBodyCache): these tests fail if a
// menu outlives a catalog change, an import seen by the version poll, or a change of store status.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, Store } from '../../src/domain/catalog/model.js';
import type { TestService } from '../support/service.js';
import { httpCatalog, startCatalogService } from './catalog-fixture.js';

let t: TestService;
let get: (url: string) => ReturnType<TestService['http']['get']>;

const NOON = '2026-11-21T12:00:00Z'; // Saturday 15:00 in Kuwait
const menuOf = async (storeId: string) => {
  const res = await get(`/v1/stores/${storeId}/menu`);
  expect(res.status).toBe(200);
  return res.body.data;
};

/** httpCatalog() with one store changed. */
function catalogWith(storeId: string, change: (s: Store) => Store, version = 'http-test-2'): Catalog {
  const base = httpCatalog();
  return { ...base, version, stores: base.stores.map((s) => (s.id === storeId ? change(structuredClone(s)) : s)) };
}

/** Shawarma Al Reem open 10:00-16:00 Kuwait time every day. */
const dayShift = (s: Store): Store => ({
  ...s,
  opening_hours: s.opening_hours.map((h) => ({ day: h.day, open: '10:00', close: '16:00' })),
});

beforeAll(async () => {
  ({ t, get } = await startCatalogService());
});
beforeEach(async () => {
  t.clock.set(NOON);
  await t.service.services.catalog.import(httpCatalog());
});
afterAll(() => t.close());

describe('GET /v1/stores/{store_id}/menu: the answer is the same as without a cache', () => {
  it('when a menu is read twice, then both answers are the JSON envelope, byte for byte, with the headers of any JSON route and Vary', async () => {
    // Uncompressed, to compare bytes and lengths (catalog-stores.test.ts covers gzip).
    const first = await get('/v1/stores/kw-shawarma-reem/menu').set('Accept-Encoding', 'identity');
    const second = await get('/v1/stores/kw-shawarma-reem/menu').set('Accept-Encoding', 'identity');
    const store = await get('/v1/stores/kw-shawarma-reem');
    expect(second.text).toBe(first.text);
    expect(first.text).toBe(JSON.stringify(first.body));
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(first.headers['content-length'])).toBe(Buffer.byteLength(first.text));
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
    expect(first.headers['etag']).toBeUndefined();
    const names = (h: Record<string, string>) => Object.keys(h).sort();
    expect(first.headers.vary).toBe('Accept-Encoding');
    expect(names(first.headers)).toEqual([...names(store.headers), 'vary'].sort());
  });
});

describe('GET /v1/stores/{store_id}/menu after a catalog change', () => {
  it('when an import changes a price, then the next menu shows the new price', async () => {
    expect((await menuOf('kw-shawarma-reem')).categories[0].items[0].price).toBe(0.65);
    await t.service.services.catalog.import(
      catalogWith('kw-shawarma-reem', (s) => {
        s.menu.categories[0]!.items[0]!.price = 700;
        return s;
      }),
    );
    expect((await menuOf('kw-shawarma-reem')).categories[0].items[0].price).toBe(0.7);
  });

  it('when an import only makes an item sold out and the store busy, then the next menu says so', async () => {
    await menuOf('kw-shawarma-reem');
    await t.service.services.catalog.import(
      catalogWith('kw-shawarma-reem', (s) => {
        s.menu.categories[0]!.items[0]!.available = false;
        return { ...s, busy: true };
      }),
    );
    const menu = await menuOf('kw-shawarma-reem');
    expect(menu.categories[0].items[0].available).toBe(false);
    expect(menu.store.status).toBe('busy');
  });

  it('when another process saves a catalog and the version poll picks it up, then the next menu is the new one', async () => {
    await menuOf('kw-shawarma-reem');
    // What `catalog import` in the CLI does: write to the shared store; the server's poll calls refresh().
    await t.stores.catalog.save(
      catalogWith('kw-shawarma-reem', (s) => ({ ...s, name: 'Shawarma Al Reem II' }), 'from-cli'),
    );
    expect((await menuOf('kw-shawarma-reem')).store.name).toBe('Shawarma Al Reem'); // not polled yet
    expect(await t.service.services.catalog.refresh()).toBe(true);
    expect((await menuOf('kw-shawarma-reem')).store.name).toBe('Shawarma Al Reem II');
  });

  it('when an import removes the store, then its menu is 404', async () => {
    await menuOf('kw-classic-burgers');
    const base = httpCatalog();
    await t.service.services.catalog.import({
      ...base,
      stores: base.stores.filter((s) => s.id !== 'kw-classic-burgers'),
    });
    expect((await get('/v1/stores/kw-classic-burgers/menu')).status).toBe(404);
  });
});

describe('GET /v1/stores/{store_id}/menu when the store status changes with time', () => {
  it('when closing time passes, then the menu says closed and not accepting orders, and open again the next morning', async () => {
    await t.service.services.catalog.import(catalogWith('kw-shawarma-reem', dayShift));
    expect((await menuOf('kw-shawarma-reem')).store).toMatchObject({ status: 'open', accepting_orders: true });
    t.clock.set('2026-11-21T12:59:59Z'); // 15:59:59 local
    expect((await menuOf('kw-shawarma-reem')).store).toMatchObject({ status: 'open', accepting_orders: true });
    t.clock.set('2026-11-21T13:00:00Z'); // 16:00 local: closed
    expect((await menuOf('kw-shawarma-reem')).store).toMatchObject({ status: 'closed', accepting_orders: false });
    t.clock.set('2026-11-22T07:00:00Z'); // 10:00 local next day
    expect((await menuOf('kw-shawarma-reem')).store).toMatchObject({ status: 'open', accepting_orders: true });
  });

  it('when a snooze ends within the minute, then the menu reopens at that instant', async () => {
    await t.service.services.catalog.import(
      catalogWith('kw-shawarma-reem', (s) => ({ ...s, snoozed_until: '2026-11-21T12:00:30Z' })),
    );
    t.clock.set('2026-11-21T12:00:10Z');
    expect((await menuOf('kw-shawarma-reem')).store).toMatchObject({ status: 'closed', accepting_orders: false });
    t.clock.set('2026-11-21T12:00:30Z');
    expect((await menuOf('kw-shawarma-reem')).store).toMatchObject({ status: 'open', accepting_orders: true });
  });

  it('when the store flag accepting_orders is off, then the store is closed (paused) and not accepting', async () => {
    await t.service.services.catalog.import(
      catalogWith('kw-shawarma-reem', (s) => ({ ...s, accepting_orders: false })),
    );
    expect((await menuOf('kw-shawarma-reem')).store).toMatchObject({ status: 'closed', accepting_orders: false });
  });

  it('when two stores are read in turn, then each gets its own menu', async () => {
    const [reem, burgers, again] = [
      await menuOf('kw-shawarma-reem'),
      await menuOf('kw-classic-burgers'),
      await menuOf('kw-shawarma-reem'),
    ];
    expect(reem.store.id).toBe('kw-shawarma-reem');
    expect(burgers.store.id).toBe('kw-classic-burgers');
    expect(again).toEqual(reem);
  });
});

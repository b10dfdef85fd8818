// GET /v1/search keeps text matches per catalog index and reuses each item's JSON: these tests
// fail if a search answers from a catalog that was replaced, or with a store status of another time.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/domain/catalog/model.js';
import type { TestService } from '../support/service.js';
import { httpCatalog, startCatalogService } from './catalog-fixture.js';

let t: TestService;
let get: (url: string) => ReturnType<TestService['http']['get']>;

type Hit = { id: string; name: string; price: number; store: { id: string; status: string } };
const search = async (q: string) => {
  const res = await get(`/v1/search?q=${encodeURIComponent(q)}`);
  expect(res.status).toBe(200);
  return res.body.data as { stores: Array<{ id: string; status: string }>; items: Hit[] };
};

/** httpCatalog() with Shawarma Al Reem's first item changed. */
function withReemItem(
  change: Partial<Catalog['stores'][number]['menu']['categories'][number]['items'][number]>,
): Catalog {
  const base = structuredClone(httpCatalog());
  const reem = base.stores.find((s) => s.id === 'kw-shawarma-reem')!;
  Object.assign(reem.menu.categories[0]!.items[0]!, change);
  return { ...base, version: 'http-test-2' };
}

beforeAll(async () => {
  ({ t, get } = await startCatalogService());
});
beforeEach(async () => {
  t.clock.set('2026-11-21T12:00:00Z');
  await t.service.services.catalog.import(httpCatalog());
});
afterAll(() => t.close());

describe('GET /v1/search: the answer is the same as without the caches', () => {
  it('when a search is made twice, then both answers are the JSON envelope, byte for byte, with the headers of any JSON route', async () => {
    const first = await get('/v1/search?q=shawarma');
    const second = await get('/v1/search?q=shawarma');
    const store = await get('/v1/stores/kw-shawarma-reem');
    expect(first.body.data.items.length).toBeGreaterThan(0);
    expect(second.text).toBe(first.text);
    expect(first.text).toBe(JSON.stringify(first.body));
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    const names = (h: Record<string, string>) => Object.keys(h).sort();
    expect(names(first.headers)).toEqual(names(store.headers));
  });
});

describe('GET /v1/search after a catalog change', () => {
  it('when an import renames an item, then the same query no longer finds it and the new name does', async () => {
    expect((await search('chicken shawarma')).items.map((i) => i.id)).toContain('chicken-shawarma');
    await t.service.services.catalog.import(withReemItem({ name: 'Chicken Wrap' }));
    expect((await search('chicken shawarma')).items.map((i) => i.id)).not.toContain('chicken-shawarma');
    expect((await search('chicken wrap')).items.map((i) => `${i.id}:${i.name}`)).toContain(
      'chicken-shawarma:Chicken Wrap',
    );
  });

  it('when an import changes a price, then the next search shows the new price', async () => {
    expect((await search('chicken shawarma')).items.find((i) => i.id === 'chicken-shawarma')!.price).toBe(0.65);
    await t.service.services.catalog.import(withReemItem({ price: 700 }));
    expect((await search('chicken shawarma')).items.find((i) => i.id === 'chicken-shawarma')!.price).toBe(0.7);
  });

  it('when another process saves a catalog and the version poll picks it up, then the next search uses it', async () => {
    await search('chicken shawarma');
    await t.stores.catalog.save(withReemItem({ price: 900 }));
    expect(await t.service.services.catalog.refresh()).toBe(true);
    expect((await search('chicken shawarma')).items.find((i) => i.id === 'chicken-shawarma')!.price).toBe(0.9);
  });

  it('when the store closes with time, then its items in the same search say closed', async () => {
    const base = structuredClone(httpCatalog());
    const reem = base.stores.find((s) => s.id === 'kw-shawarma-reem')!;
    reem.opening_hours = reem.opening_hours.map((h) => ({ day: h.day, open: '10:00', close: '16:00' }));
    await t.service.services.catalog.import(base);
    const statuses = async () =>
      (await search('shawarma')).items.filter((i) => i.store.id === 'kw-shawarma-reem').map((i) => i.store.status);
    expect(new Set(await statuses())).toEqual(new Set(['open']));
    t.clock.set('2026-11-21T13:00:00Z'); // 16:00 in Kuwait
    expect(new Set(await statuses())).toEqual(new Set(['closed']));
    expect((await search('shawarma al reem')).stores.find((s) => s.id === 'kw-shawarma-reem')!.status).toBe('closed');
  });
});

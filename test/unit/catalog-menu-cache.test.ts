import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MenuBodyCache } from '../../src/http/presenters/menu-body-cache.js';
import { toMenu } from '../../src/http/presenters/catalog.js';
import { storeStatus, type StoreStatus } from '../../src/domain/catalog/status.js';
import { makeItem, makeStore } from './catalog-fixtures.js';

const OPEN: StoreStatus = { status: 'open', accepting_orders: true, closed_reason: null, opens_at: null };
const CLOSED: StoreStatus = {
  status: 'closed',
  accepting_orders: false,
  closed_reason: 'outside_hours',
  opens_at: null,
};
const store = (id: string, items = 1) =>
  makeStore({
    id,
    menu: {
      categories: [
        {
          id: 'c',
          name: 'C',
          name_ar: null,
          items: Array.from({ length: items }, (_, i) => makeItem({ id: `i${i}` })),
        },
      ],
    },
  });
const text = (b: Buffer) => b.toString('utf8');

describe('MenuBodyCache', () => {
  it('when a menu is asked for, then the body is JSON.stringify of the envelope of toMenu', () => {
    const s = store('a', 3);
    const at = new Date('2026-11-21T12:00:00Z');
    const status = storeStatus(s, at);
    expect(text(new MenuBodyCache().body({}, s, status))).toBe(JSON.stringify({ data: toMenu(s, status) }));
  });

  it('when the same index, store and status are asked for again, then the same bytes are reused', () => {
    const cache = new MenuBodyCache();
    const index = {};
    const s = store('a');
    expect(cache.body(index, s, OPEN)).toBe(cache.body(index, s, { ...OPEN }));
  });

  it('when the status differs, then the menu is rebuilt with it', () => {
    const cache = new MenuBodyCache();
    const index = {};
    const s = store('a');
    cache.body(index, s, OPEN);
    expect(JSON.parse(text(cache.body(index, s, CLOSED))).data.store).toMatchObject({
      status: 'closed',
      accepting_orders: false,
    });
    expect(cache.size().entries).toBe(1);
  });

  it('when another index is given, then nothing of the previous one is served or kept', () => {
    const cache = new MenuBodyCache();
    cache.body({}, store('a'), OPEN);
    cache.body({}, store('b'), OPEN);
    const renamed = { ...store('b'), name: 'Renamed' };
    const next = {};
    expect(JSON.parse(text(cache.body(next, renamed, OPEN))).data.store.name).toBe('Renamed');
    expect(cache.size().entries).toBe(1);
  });

  it('when the bytes exceed the bound, then the least recently used menus go first', () => {
    const one = Buffer.byteLength(JSON.stringify({ data: toMenu(store('a'), OPEN) }));
    const cache = new MenuBodyCache(one * 2);
    const index = {};
    const [a, b, c] = [store('a'), store('b'), store('c')];
    const first = cache.body(index, a, OPEN);
    cache.body(index, b, OPEN);
    expect(cache.body(index, a, OPEN)).toBe(first); // a is now the most recent
    cache.body(index, c, OPEN); // evicts b
    expect(cache.size()).toEqual({ entries: 2, bytes: one * 2 });
    expect(cache.body(index, a, OPEN)).toBe(first);
    const bAgain = cache.body(index, b, OPEN); // rebuilt; evicts c
    expect(text(bAgain)).toContain('"id":"b"');
    expect(cache.size()).toEqual({ entries: 2, bytes: one * 2 });
  });

  it('when one menu is larger than the bound, then it is served but not kept', () => {
    const cache = new MenuBodyCache(100);
    const body = cache.body({}, store('a', 5), OPEN);
    expect(body.length).toBeGreaterThan(100);
    expect(cache.size()).toEqual({ entries: 0, bytes: 0 });
  });

  it('when the gzipped menu is asked for, then it is the same bytes compressed, made once per entry and counted in the bound', () => {
    const cache = new MenuBodyCache();
    const index = {};
    const s = store('a', 20);
    const body = cache.body(index, s, OPEN);
    const gzipped = cache.gzipped(index, s, OPEN);
    expect(gunzipSync(gzipped).equals(body)).toBe(true);
    expect(gzipped.length).toBeLessThan(body.length);
    expect(cache.gzipped(index, s, { ...OPEN })).toBe(gzipped);
    expect(cache.size()).toEqual({ entries: 1, bytes: body.length + gzipped.length });
    const closed = cache.gzipped(index, s, CLOSED);
    expect(JSON.parse(gunzipSync(closed).toString('utf8')).data.store.status).toBe('closed');
    expect(cache.body(index, s, CLOSED).equals(gunzipSync(closed))).toBe(true);
  });
});

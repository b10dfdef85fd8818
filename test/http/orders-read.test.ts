import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { demoCatalogWith, newKey, orderBody, REEM } from '../support/orders.js';
import {
  ApiSpecification,
  existingOrder,
  expectResponse,
  orderEvents as e,
  PICKUP,
  placedOrder,
} from '../support/api-spec.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService({ env: { ADMIN_TOKEN } });
  await t.service.services.catalog.import(demoCatalogWith({ [REEM.store_id]: { auto_accept: false } }));
  p = await t.partner();
});
afterAll(() => t.close());

const given = ApiSpecification.for(() => t);

async function place(key: string, over: Record<string, unknown> = {}) {
  const res = await t.http.post('/v1/orders').set(bearer(key)).set('Idempotency-Key', newKey()).send(orderBody(over));
  expect(res.status).toBe(201);
  return res.body.data as { id: string; created_at: string; reference: string };
}
const list = (key: string, query = '') => t.http.get(`/v1/orders${query}`).set(bearer(key));
const track = (id: string, key = p.sandbox) => t.http.get(`/v1/orders/${id}/tracking`).set(bearer(key));
const advance = (id: string) => t.http.post(`/v1/sandbox/orders/${id}/advance`).set(bearer(p.sandbox)).send({});
const ops = (id: string, action: string, body: Record<string, unknown> = {}) =>
  t.http.post(`/internal/orders/${id}/${action}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).send(body);

describe('GET /v1/orders', () => {
  it('when a partner lists right after placing, then its new order is there (read-your-writes), newest first', async () => {
    const partner = await t.partner();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1000);
      ids.push((await place(partner.sandbox, { reference: `ref-${i}` })).id);
      const res = await list(partner.sandbox);
      expect(res.body.data[0].id).toBe(ids[i]);
    }
    const all = await list(partner.sandbox, '?limit=100');
    expect(all.body.data.map((o: { id: string }) => o.id)).toEqual([...ids].reverse());
    expect(all.body.pagination).toEqual({ limit: 100, has_more: false, next_starting_after: null });
  });

  it('when paging with starting_after, then pages follow each other without gaps or repeats, and the last says has_more false', async () => {
    const partner = await t.partner();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push((await place(partner.sandbox)).id);
    }
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const res = await list(partner.sandbox, `?limit=3${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((o: { id: string }) => o.id));
      if (!res.body.pagination.has_more) break;
      cursor = res.body.pagination.next_starting_after;
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(ids));
  });

  it('when filtering by reference, status and creation time, then only matching orders come back', async () => {
    const partner = await t.partner();
    t.clock.set('2026-11-21T09:00:00Z');
    const early = await place(partner.sandbox, { reference: 'lookup-me' });
    t.clock.set('2026-11-21T11:00:00Z');
    const late = await place(partner.sandbox, { reference: 'other' });
    await t.http.post(`/v1/orders/${late.id}/cancel`).set(bearer(partner.sandbox));
    const byRef = await list(partner.sandbox, '?reference=lookup-me');
    expect(byRef.body.data.map((o: { id: string }) => o.id)).toEqual([early.id]);
    const cancelled = await list(partner.sandbox, '?status=cancelled');
    expect(cancelled.body.data.map((o: { id: string }) => o.id)).toEqual([late.id]);
    const after = await list(partner.sandbox, `?created_after=${encodeURIComponent('2026-11-21T10:00:00Z')}`);
    expect(after.body.data.map((o: { id: string }) => o.id)).toEqual([late.id]);
    const before = await list(partner.sandbox, `?created_before=${encodeURIComponent('2026-11-21T10:00:00+00:00')}`);
    expect(before.body.data.map((o: { id: string }) => o.id)).toEqual([early.id]);
  });

  it('when a time bound falls between two milliseconds, then an order of the millisecond below it is on the right side', async () => {
    const partner = await t.partner();
    t.clock.set('2026-11-21T09:00:00.123Z');
    const placed = await place(partner.sandbox);
    const ids = async (query: string) =>
      (await list(partner.sandbox, query)).body.data.map((o: { id: string }) => o.id) as string[];
    const at = (time: string) => encodeURIComponent(time);
    expect(await ids(`?created_before=${at('2026-11-21T09:00:00.1231Z')}`)).toEqual([placed.id]);
    expect(await ids(`?created_before=${at('2026-11-21T09:00:00.123Z')}`)).toEqual([]);
    expect(await ids(`?created_after=${at('2026-11-21T09:00:00.1229Z')}`)).toEqual([placed.id]);
    expect(await ids(`?created_after=${at('2026-11-21T09:00:00.1231Z')}`)).toEqual([]);
  });

  it('when a time bound is outside years 0000 to 9999 in UTC (an offset takes it there), then it still compares as a time', async () => {
    const partner = await t.partner();
    const placed = await place(partner.sandbox);
    const ids = async (query: string) =>
      (await list(partner.sandbox, query)).body.data.map((o: { id: string }) => o.id) as string[];
    const at = (time: string) => encodeURIComponent(time);
    for (const [query, expected] of [
      [`?created_after=${at('9999-12-31T23:59:59-23:59')}`, []],
      [`?created_before=${at('9999-12-31T23:59:59-23:59')}`, [placed.id]],
      [`?created_after=${at('0000-01-01T00:00:00+23:59')}`, [placed.id]],
      [`?created_before=${at('0000-01-01T00:00:00+23:59')}`, []],
    ] as const) {
      expect(await ids(query), query).toEqual(expected);
      const events = await t.http.get(`/v1/events${query}&order_id=${placed.id}`).set(bearer(partner.sandbox));
      expect(events.body.data.length > 0, `events ${query}`).toBe(expected.length > 0);
    }
  });

  it('when a reference with surrounding spaces is sent, then a lookup by the value as sent finds the order', async () => {
    const partner = await t.partner();
    const sent = '  ref-42 ';
    const placed = await place(partner.sandbox, { reference: sent });
    expect(placed.reference).toBe('ref-42');
    const ids = async (reference: string) =>
      (await list(partner.sandbox, `?reference=${encodeURIComponent(reference)}`)).body.data.map(
        (o: { id: string }) => o.id,
      ) as string[];
    expect(await ids(sent)).toEqual([placed.id]);
    expect(await ids('ref-42')).toEqual([placed.id]);
    expect(await ids('ref-4')).toEqual([]);
  });

  it('when listing, then only the partner’s own orders of the key’s environment are shown', async () => {
    const a = await t.partner();
    const b = await t.partner();
    const mine = await place(a.sandbox);
    await place(a.live);
    await place(b.sandbox);
    const res = await list(a.sandbox, '?limit=100');
    expect(res.body.data.map((o: { id: string }) => o.id)).toEqual([mine.id]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['status=lost', 'status'],
    ['created_after=yesterday', 'created_after'],
    ['starting_after=ord_unknown', 'starting_after'],
    ['colour=blue', 'colour'],
  ])('when the query has %s, then 400 naming %s', async (query, param) => {
    const res = await list(p.sandbox, `?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it.each(['2026-11-21T08:20Z', '2026-11-21T08:20:00+0300', '2026-11-21T08:20:00+03'])(
    'when created_after is %s (ISO 8601, not RFC 3339), then 400 saying RFC 3339',
    async (bound) => {
      const res = await list(p.sandbox, `?created_after=${encodeURIComponent(bound)}`);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        'created_after must be an RFC 3339 date and time, e.g. 2026-11-21T12:00:00Z.',
      );
    },
  );
});

describe('GET /v1/orders/{id}/tracking', () => {
  it('when a sandbox delivery order is advanced, then the timeline lists each status in order and the rider appears while it is delivered', async () => {
    const o = await place(p.sandbox);
    const first = await track(o.id);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ order_id: o.id, status: 'placed', fulfilment: 'delivery', rider: null });
    expect(first.body.data.timeline).toEqual([{ status: 'placed', at: o.created_at }]);
    for (let i = 0; i < 4; i++) {
      t.clock.advance(60_000);
      await advance(o.id);
    }
    const moving = await track(o.id);
    expect(moving.body.data.timeline.map((e: { status: string }) => e.status)).toEqual([
      'placed',
      'confirmed',
      'preparing',
      'ready',
      'out_for_delivery',
    ]);
    // The sandbox rider has a position from its assignment: at the store (docs/orders.md, sandbox).
    expect(moving.body.data.rider).toMatchObject({
      name: 'Sandbox Rider',
      location: { lat: 29.33491, lng: 48.077839, stale: false },
    });
    await advance(o.id);
    const done = await track(o.id);
    expect(done.body.data.status).toBe('delivered');
    expect(done.body.data.rider).toBeNull();
    const ats = done.body.data.timeline.map((e: { at: string }) => e.at);
    expect([...ats].sort()).toEqual(ats);
    for (const at of ats) expect(at).toMatch(/Z$/);
  });

  it('when a pickup order has been collected, then the timeline ends with completed and there is no rider', async () => {
    const minute = (m: number) => `2026-11-21T11:0${m}:00.000Z`;
    const order = placedOrder(p.id, 'sandbox', { ...PICKUP, at: minute(0) });
    await given(
      existingOrder(
        order,
        e.accepted('sandbox', minute(1)),
        e.preparationStarted(minute(2)),
        e.packed(minute(3)),
        e.collected(minute(4)),
      ),
    )
      .when(() => track(order.order_id))
      .then(
        expectResponse(200, {
          body: {
            data: {
              order_id: order.order_id,
              status: 'completed',
              fulfilment: 'pickup',
              rider: null,
              timeline: ['placed', 'confirmed', 'preparing', 'ready', 'completed'].map((status, m) => ({
                status,
                at: minute(m),
              })),
            },
          },
        }),
      );
  });

  it('when a rider is assigned at confirmed, then it is hidden until preparing; its position goes stale after a minute', async () => {
    const o = await place(p.live);
    await ops(o.id, 'accept');
    await ops(o.id, 'assign-rider', { name: 'Ahmed', phone: '+96555512345', vehicle: 'motorbike' });
    expect((await track(o.id, p.live)).body.data.rider).toBeNull();
    await ops(o.id, 'start');
    // Shown from preparing; no position reported yet is a null location, not a made-up one.
    expect((await track(o.id, p.live)).body.data.rider).toEqual({
      name: 'Ahmed',
      phone: '+96555512345',
      vehicle: 'motorbike',
      location: null,
    });
    await ops(o.id, 'rider-location', { lat: 29.3351, lng: 48.0812 });
    const fresh = await track(o.id, p.live);
    expect(fresh.body.data.rider).toEqual({
      name: 'Ahmed',
      phone: '+96555512345',
      vehicle: 'motorbike',
      location: { lat: 29.3351, lng: 48.0812, updated_at: t.clock.now().toISOString(), stale: false },
    });
    t.clock.advance(61_000);
    expect((await track(o.id, p.live)).body.data.rider.location.stale).toBe(true);
  });

  it('when rider positions keep coming, then the rider stream stays bounded and the order stream does not grow', async () => {
    const o = await place(p.live);
    await ops(o.id, 'accept');
    await ops(o.id, 'assign-rider', { name: 'Ahmed', phone: '+96555512345', vehicle: 'motorbike' });
    for (let i = 0; i < 60; i++) await ops(o.id, 'rider-location', { lat: 29.33 + i / 10_000, lng: 48.08 });
    expect(await t.stores.events.readStream(`rider-${o.id}`)).toHaveLength(50);
    expect(await t.stores.events.readStream(`order-${o.id}`)).toHaveLength(3);
    await ops(o.id, 'start');
    expect((await track(o.id, p.live)).body.data.rider.location.lat).toBeCloseTo(29.3359, 6);
  });

  it("when another partner or environment asks for an order's tracking, then 404", async () => {
    const o = await place(p.sandbox);
    const other = await t.partner();
    for (const key of [other.sandbox, p.live]) {
      const res = await track(o.id, key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('order_not_found');
    }
  });
});

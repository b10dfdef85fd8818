import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestPartner } from '../support/service.js';
import { newKey, orderBody } from '../support/orders.js';
import { DELIVERY_RETENTION_MS } from '../../src/webhooks/deliveries.js';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from './webhooks-fixture.js';

let ts: WebhookService;
let receiver: Receiver;
let p: TestPartner;
let other: TestPartner;
const ids: Record<string, string> = {};
let orderA: string;

const list = (query = '', key = p.sandbox) => ts.http.get(`/v1/webhooks/deliveries${query}`).set(bearer(key));
const eventTypes = (res: { body: { data: Array<{ event_type: string; order_id: string | null }> } }) =>
  res.body.data.map((d) => `${d.event_type}:${d.order_id === orderA ? 'A' : d.order_id ? 'B' : '-'}`);

// Four deliveries a second apart: A created, A confirmed, B created, a test event the receiver refuses
// (plus one test event of another partner).
beforeAll(async () => {
  ts = await startWebhookService();
  receiver = await startReceiver();
  receiver.reply = (_n, req) => ({ status: req.headers['service-event-type'] === 'webhook.test' ? 500 : 200 });
  p = await ts.partner();
  other = await ts.partner('Other');
  await register(ts, p.sandbox, receiver.url);
  await register(ts, other.sandbox, receiver.url);
  const place = async () =>
    (await ts.http.post('/v1/orders').set(bearer(p.sandbox)).set('Idempotency-Key', newKey()).send(orderBody())).body
      .data.id as string;
  // Each step is delivered before the clock moves on, so every delivery has its own time.
  const step = async (n: number, act: () => Promise<unknown>) => {
    await act();
    await receiver.waitFor(n);
    await ts.scheduler.runDue();
    ts.clock.advance(1000);
  };
  await step(1, async () => (orderA = await place()));
  await step(2, () => ts.http.post(`/v1/sandbox/orders/${orderA}/advance`).set(bearer(p.sandbox)).send({}));
  await step(3, place);
  await step(4, () => ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({}));
  await step(5, () => ts.http.post('/v1/webhooks/test').set(bearer(other.sandbox)).send({}));
  for (const d of (await list()).body.data)
    ids[`${d.event_type}:${d.order_id === orderA ? 'A' : d.order_id ? 'B' : '-'}`] = d.id;
});
afterAll(async () => {
  await receiver.close();
  await ts.close();
});

describe('GET /v1/webhooks/deliveries', () => {
  it('when listed, then the partner+environment deliveries come newest first, as documented records', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(eventTypes(res)).toEqual(['webhook.test:-', 'order.created:B', 'order.status_changed:A', 'order.created:A']);
    const created = res.body.data[3];
    expect(Object.keys(created)).toEqual([
      'id',
      'object',
      'event_id',
      'event_type',
      'order_id',
      'url',
      'status',
      'attempt_count',
      'next_attempt_at',
      'created_at',
      'updated_at',
      'attempts',
      'failure_reason',
    ]);
    expect(created).toMatchObject({
      object: 'webhook_delivery',
      order_id: orderA,
      url: receiver.url,
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
    });
    expect(created.id).toMatch(/^whd_/);
    expect(created.event_id).toBe(
      receiver.received.find((r) => r.event.type === 'order.created' && r.event.data.order?.id === orderA)!.event.id,
    );
    expect(created.attempts).toEqual([
      {
        at: created.created_at,
        trigger: 'schedule',
        url: receiver.url,
        status: 200,
        duration_ms: expect.any(Number),
        error: null,
      },
    ]);
    expect(res.body.pagination).toEqual({ limit: 10, has_more: false, next_starting_after: null });
  });

  it.each([
    ['?type=order.created', ['order.created:B', 'order.created:A']],
    ['?status=retrying', ['webhook.test:-']],
    ['?status=succeeded', ['order.created:B', 'order.status_changed:A', 'order.created:A']],
    ['?status=failed', []],
    ['?type=order.created&status=succeeded', ['order.created:B', 'order.created:A']],
  ])('when filtered with %s, then only matching deliveries are listed', async (query, expected) => {
    expect(eventTypes(await list(query))).toEqual(expected);
  });

  it('when filtered by order id or event id, then only that order or event is listed', async () => {
    expect(eventTypes(await list(`?order_id=${orderA}`))).toEqual(['order.status_changed:A', 'order.created:A']);
    const one = (await ts.http.get(`/v1/webhooks/deliveries/${ids['order.status_changed:A']}`).set(bearer(p.sandbox)))
      .body.data;
    expect(eventTypes(await list(`?event_id=${one.event_id}`))).toEqual(['order.status_changed:A']);
  });

  it('when paged with limit and starting_after, then the pages join up without gaps or repeats', async () => {
    const page1 = await list('?limit=3');
    expect(eventTypes(page1)).toEqual(['webhook.test:-', 'order.created:B', 'order.status_changed:A']);
    expect(page1.body.pagination).toEqual({
      limit: 3,
      has_more: true,
      next_starting_after: ids['order.status_changed:A'],
    });
    const page2 = await list(`?limit=3&starting_after=${page1.body.pagination.next_starting_after}`);
    expect(eventTypes(page2)).toEqual(['order.created:A']);
    expect(page2.body.pagination).toEqual({ limit: 3, has_more: false, next_starting_after: null });
  });

  it("when a query parameter is invalid, then 400 validation_error; another partner's delivery as the cursor, 404", async () => {
    for (const q of ['?status=bogus', '?type=order.shipped', '?limit=0', '?limit=101', '?colour=red']) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    const foreign = (await list('', other.sandbox)).body.data[0].id as string;
    const cursor = await list(`?starting_after=${foreign}`);
    expect(cursor.status).toBe(404);
    expect(cursor.body.error).toMatchObject({ code: 'delivery_not_found', param: 'starting_after' });
  });

  it('when the key lacks webhooks:read, then 403', async () => {
    const reader = await ts.partner('No webhooks', ['orders:read']);
    expect((await list('', reader.sandbox)).status).toBe(403);
  });
});

describe('isolation', () => {
  it('when another partner or the live environment asks for a delivery, then 404 delivery_not_found, for get and redeliver', async () => {
    const id = ids['order.created:A']!;
    for (const key of [other.sandbox, other.live, p.live]) {
      const get = await ts.http.get(`/v1/webhooks/deliveries/${id}`).set(bearer(key));
      expect(get.status).toBe(404);
      expect(get.body.error.code).toBe('delivery_not_found');
      const redeliver = await ts.http.post(`/v1/webhooks/deliveries/${id}/redeliver`).set(bearer(key)).send({});
      expect(redeliver.status).toBe(404);
      expect(redeliver.body.error.code).toBe('delivery_not_found');
    }
    expect((await list('', p.live)).body.data).toEqual([]);
    expect((await list('', other.sandbox)).body.data.map((d: { id: string }) => d.id)).not.toContain(id);
    expect((await ts.http.get('/v1/webhooks/deliveries/whd_nope').set(bearer(p.sandbox))).status).toBe(404);
  });
});

describe('retention', () => {
  it('when a delivery is older than 30 days, then it is no longer listed, shown or redelivered', async () => {
    const oldest = ids['order.created:A']!;
    ts.clock.advance(DELIVERY_RETENTION_MS - 5000); // A created is now 30 days old to the millisecond
    expect(eventTypes(await list())).toContain('order.created:A');
    ts.clock.advance(1);
    expect(eventTypes(await list())).toEqual(['webhook.test:-', 'order.created:B', 'order.status_changed:A']);
    expect((await ts.http.get(`/v1/webhooks/deliveries/${oldest}`).set(bearer(p.sandbox))).status).toBe(404);
    expect(
      (await ts.http.post(`/v1/webhooks/deliveries/${oldest}/redeliver`).set(bearer(p.sandbox)).send({})).status,
    ).toBe(404);
  });
});

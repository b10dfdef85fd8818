import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestPartner } from '../support/service.js';
import { newKey, orderBody } from '../support/orders.js';
import { verifySignature } from '../../src/webhooks/signing.js';
import {
  expectStripeVerifies,
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type Received,
  type WebhookService,
} from './webhooks-fixture.js';

let ts: WebhookService;
let receiver: Receiver;
beforeAll(async () => {
  ts = await startWebhookService();
});
afterAll(() => ts.close());
afterEach(() => receiver?.close());

async function setUp(events?: string[]): Promise<{ p: TestPartner; secret: string }> {
  receiver = await startReceiver();
  const p = await ts.partner();
  return { p, secret: await register(ts, p.sandbox, receiver.url, events) };
}

async function placeOrder(key: string, fulfilment: 'delivery' | 'pickup' = 'delivery'): Promise<string> {
  const body = orderBody({ fulfilment });
  if (fulfilment === 'pickup') delete body.delivery_address;
  const res = await ts.http.post('/v1/orders').set(bearer(key)).set('Idempotency-Key', newKey()).send(body);
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

async function advance(key: string, id: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++)
    expect((await ts.http.post(`/v1/sandbox/orders/${id}/advance`).set(bearer(key)).send({})).status).toBe(200);
}

const summary = (r: Received) => [
  r.event.type,
  r.event.data.order?.status ?? null,
  r.event.data.previous_status ?? null,
];

function expectWellFormed(r: Received, secret: string, orderId: string): void {
  expectStripeVerifies(r, secret, ts.clock);
  expect(
    verifySignature({ header: r.headers['service-signature'] as string, body: r.body, secret, now: ts.clock.now() }).ok,
  ).toBe(true);
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers['service-event-id']).toBe(r.event.id);
  expect(r.headers['service-event-type']).toBe(r.event.type);
  expect(r.headers['service-signature']).toMatch(
    new RegExp(`^t=${String(r.headers['service-timestamp'])},v1=[0-9a-f]{64}$`),
  );
  expect(Object.keys(r.event)).toEqual(['id', 'object', 'type', 'created', 'environment', 'data']);
  expect(r.event).toMatchObject({
    object: 'event',
    environment: 'sandbox',
    data: { order: { id: orderId, object: 'order', environment: 'sandbox' } },
  });
  expect(r.event.id).toMatch(/^evt_/);
}

describe('sandbox orders reach a real receiver', () => {
  it('when a delivery order walks its whole path, then every event arrives once, in order, signed, as the order was then', async () => {
    const { p, secret } = await setUp();
    const id = await placeOrder(p.sandbox);
    await advance(p.sandbox, id, 5);
    const got = await receiver.waitFor(7);
    expect(got.map(summary)).toEqual([
      ['order.created', 'placed', null],
      ['order.status_changed', 'confirmed', 'placed'],
      ['order.status_changed', 'preparing', 'confirmed'],
      ['order.status_changed', 'ready', 'preparing'],
      ['order.status_changed', 'out_for_delivery', 'ready'],
      ['order.status_changed', 'delivered', 'out_for_delivery'],
      ['order.payment_updated', 'delivered', null],
    ]);
    for (const r of got) expectWellFormed(r, secret, id);
    expect(new Set(got.map((r) => r.event.id)).size).toBe(7);
    // The full public order, as GET /v1/orders/{id} shows it now for the last event.
    const now = await ts.http.get(`/v1/orders/${id}`).set(bearer(p.sandbox));
    expect(got[6]!.event.data.order).toEqual(now.body.data);
    expect(got[6]!.event.data.order!.payment.status).toBe('paid');
    await ts.scheduler.runDue();
    expect(receiver.received).toHaveLength(7);
  });

  it('when a pickup order walks its whole path, then every event arrives in order and verifies', async () => {
    const { p, secret } = await setUp();
    const id = await placeOrder(p.sandbox, 'pickup');
    await advance(p.sandbox, id, 4);
    const got = await receiver.waitFor(6);
    expect(got.map(summary)).toEqual([
      ['order.created', 'placed', null],
      ['order.status_changed', 'confirmed', 'placed'],
      ['order.status_changed', 'preparing', 'confirmed'],
      ['order.status_changed', 'ready', 'preparing'],
      ['order.status_changed', 'completed', 'ready'],
      ['order.payment_updated', 'completed', null],
    ]);
    for (const r of got) expectWellFormed(r, secret, id);
  });

  it('when the endpoint subscribes to some types, then only those are sent', async () => {
    const { p } = await setUp(['order.status_changed']);
    const id = await placeOrder(p.sandbox);
    await advance(p.sandbox, id, 2);
    const got = await receiver.waitFor(2);
    expect(got.map(summary)).toEqual([
      ['order.status_changed', 'confirmed', 'placed'],
      ['order.status_changed', 'preparing', 'confirmed'],
    ]);
    const list = await ts.http.get('/v1/webhooks/deliveries').set(bearer(p.sandbox));
    expect(list.body.data.map((d: { event_type: string }) => d.event_type)).toEqual([
      'order.status_changed',
      'order.status_changed',
    ]);
  });

  it('when another partner or the live environment has an order, then this endpoint gets nothing of it', async () => {
    const { p } = await setUp();
    const other = await ts.partner('Other');
    await placeOrder(other.sandbox);
    await placeOrder(p.live);
    const mine = await placeOrder(p.sandbox);
    const [first] = await receiver.waitFor(1);
    expect(first!.event.data.order).toMatchObject({ id: mine });
    await ts.scheduler.runDue();
    expect(receiver.received).toHaveLength(1);
  });
});

describe('at-least-once dispatch', () => {
  it('when the consumer group hands over already dispatched order events again, then nothing is recorded or sent twice', async () => {
    const { p } = await setUp();
    const id = await placeOrder(p.sandbox);
    await advance(p.sandbox, id, 1);
    await receiver.waitFor(2);
    await ts.scheduler.runDue();
    for (const e of await ts.stores.events.readStream(`order-${id}`)) {
      expect(await ts.service.webhooks.dispatcher.handle(e)).toBe('ack');
    }
    await ts.scheduler.runDue();
    expect(receiver.received).toHaveLength(2);
    const log = await ts.http.get(`/v1/webhooks/deliveries?order_id=${id}`).set(bearer(p.sandbox));
    expect(log.body.data.map((d: { attempt_count: number }) => d.attempt_count)).toEqual([1, 1]);
    for (const d of log.body.data) {
      const recorded = await ts.stores.events.readStream(`webhook-delivery-${d.id}`);
      expect(recorded.map((e) => e.type)).toEqual([
        'WebhookDeliveryScheduled',
        'WebhookAttemptStarted',
        'WebhookAttemptSucceeded',
      ]);
    }
  });
});

describe('ordering', () => {
  it('when the receiver is slow to answer an event, then the next event of that order waits, and other orders do not', async () => {
    const { p } = await setUp();
    receiver.reply = (n) => ({ status: 200, delayMs: n === 0 ? 400 : 0 });
    const slow = await placeOrder(p.sandbox);
    await receiver.waitFor(1);
    await advance(p.sandbox, slow, 1);
    const other = await placeOrder(p.sandbox);
    const got = await receiver.waitFor(3);
    // The other order's event went out while the first answer was still pending...
    expect(got[1]!.event.data.order).toMatchObject({ id: other });
    expect(got[1]!.arrivedAt).toBeLessThan(got[0]!.answeredAt ?? Infinity);
    // ...but the slow order's next event only after its first attempt had ended.
    expect(got[2]!.event).toMatchObject({ type: 'order.status_changed', data: { order: { id: slow } } });
    expect(got[2]!.arrivedAt).toBeGreaterThanOrEqual(got[0]!.answeredAt!);
  });
});

describe('POST /v1/webhooks/test', () => {
  it('when an endpoint is registered, then a signed webhook.test event arrives and is logged as succeeded', async () => {
    const { p, secret } = await setUp(['order.created']);
    const res = await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      object: 'webhook_delivery',
      event_type: 'webhook.test',
      order_id: null,
      url: receiver.url,
    });
    const [r] = await receiver.waitFor(1);
    expectStripeVerifies(r!, secret, ts.clock);
    expect(r!.event).toMatchObject({
      id: res.body.data.event_id,
      type: 'webhook.test',
      environment: 'sandbox',
      data: { partner_id: p.id },
    });
    expect(typeof r!.event.data.message).toBe('string');
    await ts.scheduler.runDue();
    const after = await ts.http.get(`/v1/webhooks/deliveries/${res.body.data.id}`).set(bearer(p.sandbox));
    expect(after.body.data).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      attempts: [{ status: 200, error: null }],
    });
  });

  it('when no endpoint is registered, then 409 webhook_endpoint_not_configured', async () => {
    const p = await ts.partner();
    const res = await ts.http.post('/v1/webhooks/test').set(bearer(p.live)).send({});
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('webhook_endpoint_not_configured');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestPartner } from '../support/service.js';
import { demoCatalogWith, newKey, orderBody, REEM } from '../support/orders.js';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from './webhooks-fixture.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
/** Shawarma Al Reem's location in the demo catalog: the sandbox rider's route starts there. */
const REEM_STORE = { lat: 29.33491, lng: 48.077839 };

let ts: WebhookService;
let p: TestPartner;
let receiver: Receiver;

beforeAll(async () => {
  ts = await startWebhookService({ env: { ADMIN_TOKEN } });
  // Manual acceptance, so live orders move only when the test says so.
  await ts.service.services.catalog.import(demoCatalogWith({ [REEM.store_id]: { auto_accept: false } }));
  p = await ts.partner();
  receiver = await startReceiver();
  await register(ts, p.sandbox, receiver.url);
});
afterAll(async () => {
  await receiver.close();
  await ts.close();
});

async function place(key: string, over: Record<string, unknown> = {}): Promise<string> {
  const body = orderBody(over);
  if (over.fulfilment === 'pickup') delete body.delivery_address;
  const res = await ts.http.post('/v1/orders').set(bearer(key)).set('Idempotency-Key', newKey()).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as string;
}
const simulate = (id: string, body: Record<string, unknown>, key = p.sandbox) =>
  ts.http.post(`/v1/sandbox/orders/${id}/simulate`).set(bearer(key)).send(body);
const advance = (id: string, key = p.sandbox) =>
  ts.http.post(`/v1/sandbox/orders/${id}/advance`).set(bearer(key)).send({});
const ops = (id: string, action: string, body: Record<string, unknown> = {}) =>
  ts.http.post(`/internal/orders/${id}/${action}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).send(body);
const tracking = (id: string) => ts.http.get(`/v1/orders/${id}/tracking`).set(bearer(p.sandbox));

/** The first `count` webhooks of `orderId` that arrive (per order they arrive in order): type, order status, payment status. */
async function webhooksOf(orderId: string, count: number): Promise<string[][]> {
  const got = () => receiver.received.filter((r) => r.event.data.order?.id === orderId);
  while (got().length < count) await receiver.waitFor(receiver.received.length + 1);
  return got().map((r) => [r.event.type, r.event.data.order!.status, r.event.data.order!.payment.status]);
}

/** The stored facts of an order without their times: what simulating and operating must both write. */
async function facts(orderId: string) {
  const events = await ts.stores.events.readStream(`order-${orderId}`);
  return events.slice(1).map((e) => {
    const { at: _at, ...data } = e.data;
    return { type: e.type, data, actor: (e.metadata as { actor?: string }).actor };
  });
}

describe('simulate: each action does what the real actor does', () => {
  it('when an unpaid sandbox card order is advanced, then 409 payment_pending says how to pay it', async () => {
    const id = await place(p.sandbox, { payment_method: 'card' });
    const res = await advance(id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('payment_pending');
    expect(res.body.error.message).toContain(`/v1/sandbox/orders/${id}/simulate`);
    expect(res.body.error.message).toContain('payment_succeeded');
  });

  it('when payment_succeeded is simulated, then the card order is paid, order.payment_updated is sent, and it can be advanced', async () => {
    const id = await place(p.sandbox, { payment_method: 'card' });
    const res = await simulate(id, { action: 'payment_succeeded' });
    expect(res.status).toBe(200);
    expect(res.body.data.payment.status).toBe('paid');
    expect(await webhooksOf(id, 2)).toEqual([
      ['order.created', 'placed', 'pending'],
      ['order.payment_updated', 'placed', 'paid'],
    ]);
    expect((await advance(id)).body.data.status).toBe('confirmed');
  });

  it('when payment_failed is simulated, then the payment is failed with the reason kept, and a later payment still succeeds', async () => {
    const id = await place(p.sandbox, { payment_method: 'card' });
    const res = await simulate(id, { action: 'payment_failed', reason: 'insufficient_funds' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'placed', payment: { status: 'failed' } });
    expect((await webhooksOf(id, 2))[1]).toEqual(['order.payment_updated', 'placed', 'failed']);
    expect((await facts(id)).at(-1)).toEqual({
      type: 'PaymentFailed',
      data: { reason: 'insufficient_funds' },
      actor: 'system',
    });
    expect((await simulate(id, { action: 'payment_succeeded' })).body.data.payment.status).toBe('paid');
  });

  it('when restaurant_cancel is simulated, then the order is cancelled by the restaurant with the reason, as the operators would', async () => {
    const id = await place(p.sandbox);
    await advance(id);
    const res = await simulate(id, { action: 'restaurant_cancel', reason: 'Out of bread' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'cancelled',
      cancellation: { by: 'restaurant', reason: 'Out of bread' },
    });
    expect((await webhooksOf(id, 3))[2]).toEqual(['order.status_changed', 'cancelled', 'pending']);

    // The same action by the operators on a live twin writes the same facts.
    const live = await place(p.live);
    expect((await ops(live, 'accept')).status).toBe(200);
    expect((await ops(live, 'cancel', { reason: 'Out of bread' })).status).toBe(200);
    expect(await facts(id)).toEqual(
      (await facts(live)).map((f) =>
        f.type === 'OrderAccepted' ? { ...f, data: { by: 'sandbox' }, actor: 'sandbox' } : f,
      ),
    );
  });

  it('when a reason is at its limit in characters but longer in UTF-16 units, then it is taken; one more is 400', async () => {
    const id = await place(p.sandbox);
    const long = await simulate(id, { action: 'restaurant_cancel', reason: '🍕'.repeat(201) });
    expect(long.status).toBe(400);
    expect(long.body.error.param).toBe('reason');
    const res = await simulate(id, { action: 'restaurant_cancel', reason: '🍕'.repeat(200) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.cancellation.reason).toBe('🍕'.repeat(200));
  });

  it('when refund is simulated partly and then in full, then order.refunded follows each, in major units', async () => {
    const id = await place(p.sandbox, { payment_method: 'card' });
    await simulate(id, { action: 'payment_succeeded' });
    await simulate(id, { action: 'restaurant_cancel', reason: 'Kitchen closed' });
    const tooFine = await simulate(id, { action: 'refund', amount: 0.0001 });
    expect(tooFine.status).toBe(422);
    expect(tooFine.body.error).toMatchObject({
      code: 'invalid_amount',
      param: 'amount',
      message: 'amount has more decimals than KWD has (3).',
    });
    const part = await simulate(id, { action: 'refund', amount: 0.5 });
    expect(part.status).toBe(200);
    expect(part.body.data).toMatchObject({
      status: 'partially_refunded',
      payment: { status: 'partially_refunded', refunded_amount: 0.5 },
    });
    const rest = await simulate(id, { action: 'refund' });
    expect(rest.status).toBe(200);
    expect(rest.body.data).toMatchObject({
      status: 'refunded',
      payment: { status: 'refunded', refunded_amount: rest.body.data.pricing.total },
    });
    const types = (await webhooksOf(id, 9)).map(([type, status]) => `${type}:${status}`);
    expect(types).toEqual([
      'order.created:placed',
      'order.payment_updated:placed',
      'order.status_changed:cancelled',
      'order.status_changed:partially_refunded',
      'order.payment_updated:partially_refunded',
      'order.refunded:partially_refunded',
      'order.status_changed:refunded',
      'order.payment_updated:refunded',
      'order.refunded:refunded',
    ]);
  });
});

describe('simulate: refusals are the real ones', () => {
  /** Each case: an order in some state, an action refused there, and the operators' name for it. */
  const cases: Array<{
    name: string;
    setUp: (key: string) => Promise<string>;
    action: Record<string, unknown>;
    op: [string, Record<string, unknown>];
  }> = [
    {
      name: 'payment_succeeded on a cash order',
      setUp: (key) => place(key),
      action: { action: 'payment_succeeded' },
      op: ['pay', {}],
    },
    {
      name: 'payment_failed on a paid card order',
      setUp: async (key) => {
        const id = await place(key, { payment_method: 'card' });
        expect((await ops(id, 'pay')).status).toBe(200);
        return id;
      },
      action: { action: 'payment_failed' },
      op: ['fail-payment', {}],
    },
    {
      name: 'refund of an unpaid card order',
      setUp: (key) => place(key, { payment_method: 'card' }),
      action: { action: 'refund', amount: 1 },
      op: ['refund', { amount: 1 }],
    },
    {
      name: 'refund of more than was paid',
      setUp: async (key) => {
        const id = await place(key, { payment_method: 'card' });
        expect((await ops(id, 'pay')).status).toBe(200);
        expect((await ops(id, 'cancel', { reason: 'x' })).status).toBe(200);
        return id;
      },
      action: { action: 'refund', amount: 1000 },
      op: ['refund', { amount: 1000 }],
    },
    {
      name: 'refund with more decimals than the currency has',
      setUp: async (key) => {
        const id = await place(key, { payment_method: 'card' });
        expect((await ops(id, 'pay')).status).toBe(200);
        expect((await ops(id, 'cancel', { reason: 'x' })).status).toBe(200);
        return id;
      },
      action: { action: 'refund', amount: 0.0001 },
      op: ['refund', { amount: 0.0001 }],
    },
    {
      name: 'restaurant_cancel of a cancelled order',
      setUp: async (key) => {
        const id = await place(key);
        expect((await ops(id, 'cancel', { reason: 'x' })).status).toBe(200);
        return id;
      },
      action: { action: 'restaurant_cancel', reason: 'again' },
      op: ['cancel', { reason: 'again' }],
    },
    {
      name: 'rider_location without a rider',
      setUp: (key) => place(key),
      action: { action: 'rider_location' },
      op: ['rider-location', { lat: 29.334, lng: 48.08 }],
    },
  ];

  for (const c of cases) {
    it(`when ${c.name} is simulated, then the answer equals the operators' refusal`, async () => {
      const sandbox = await c.setUp(p.sandbox);
      const live = await c.setUp(p.live);
      const simulated = await simulate(sandbox, c.action);
      const operated = await ops(live, ...c.op);
      expect(simulated.status).toBeGreaterThanOrEqual(409);
      expect(simulated.status).toBe(operated.status);
      expect(simulated.body.error.code).toBe(operated.body.error.code);
      expect(simulated.body.error.message).toBe(operated.body.error.message);
    });
  }
});

describe('simulate: who may call it and with what', () => {
  it('when a live key simulates, then 403 sandbox_only whatever the order; a sandbox key on another order, 404', async () => {
    const live = await place(p.live);
    const sandbox = await place(p.sandbox);
    for (const id of [live, sandbox, 'sbx_doesNotExist']) {
      const refused = await simulate(id, { action: 'payment_succeeded' }, p.live);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('sandbox_only');
    }
    // Before the body is validated, too.
    const invalid = await simulate(sandbox, { action: 'fly' }, p.live);
    expect(invalid.body.error.code).toBe('sandbox_only');

    const other = await ts.partner('Other Partner');
    for (const [id, key] of [
      [sandbox, other.sandbox],
      [live, p.sandbox],
      ['sbx_doesNotExist', p.sandbox],
    ] as const) {
      const res = await simulate(id, { action: 'restaurant_cancel', reason: 'x' }, key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('order_not_found');
    }
    expect((await ts.http.get(`/v1/orders/${sandbox}`).set(bearer(p.sandbox))).body.data.status).toBe('placed');
  });

  it('when the body names no known action, misses a required field or adds another, then 400 validation_error', async () => {
    const id = await place(p.sandbox);
    for (const body of [
      {},
      { action: 'teleport' },
      { action: 'restaurant_cancel' },
      { action: 'payment_succeeded', amount: 1 },
      { action: 'refund', amount: -1 },
    ]) {
      const res = await simulate(id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it('when the OpenAPI document is read, then simulate states one body per action', async () => {
    const doc = (await ts.http.get('/v1/openapi.json')).body;
    const op = doc.paths['/v1/sandbox/orders/{order_id}/simulate'].post;
    const schema = op.requestBody.content['application/json'].schema;
    const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
    const actions = (resolved.oneOf ?? resolved.anyOf).map(
      (s: { properties: { action: { const?: string; enum?: string[] } } }) =>
        s.properties.action.const ?? s.properties.action.enum![0],
    );
    expect(actions).toEqual(['payment_succeeded', 'payment_failed', 'restaurant_cancel', 'refund', 'rider_location']);
  });
});

describe('sandbox rider', () => {
  /** The point `share` of the way from the store to the customer, to 6 decimals. */
  const along = (share: number) => ({
    lat: Math.round((REEM_STORE.lat + (REEM.near.lat - REEM_STORE.lat) * share) * 1e6) / 1e6,
    lng: Math.round((REEM_STORE.lng + (REEM.near.lng - REEM_STORE.lng) * share) * 1e6) / 1e6,
  });
  const riderAt = async (id: string) => {
    const res = await tracking(id);
    expect(res.status).toBe(200);
    const location = res.body.data.rider?.location;
    return location ? { lat: location.lat, lng: location.lng } : null;
  };

  async function outForDelivery(): Promise<string> {
    const id = await place(p.sandbox);
    for (let i = 0; i < 4; i++) expect((await advance(id)).status).toBe(200);
    return id;
  }

  it('when the sandbox rider leaves with the order, then tracking shows it at the store, and each rider_location moves it toward the customer', async () => {
    const id = await outForDelivery();
    expect(await riderAt(id)).toEqual(along(0));
    const track = [];
    for (let step = 1; step <= 6; step++) {
      const res = await simulate(id, { action: 'rider_location' });
      expect(res.status).toBe(200);
      track.push(await riderAt(id));
    }
    // Five steps to the door; then it stays there.
    expect(track).toEqual([along(0.2), along(0.4), along(0.6), along(0.8), along(1), along(1)]);
    expect((await advance(id)).body.data.status).toBe('delivered');
    const after = await simulate(id, { action: 'rider_location' });
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe('invalid_transition');
  });

  it('when two orders to the same place are walked alike, then their riders take the same positions', async () => {
    const a = await outForDelivery();
    const b = await outForDelivery();
    await simulate(a, { action: 'rider_location' });
    await simulate(b, { action: 'rider_location' });
    expect(await riderAt(a)).toEqual(await riderAt(b));
    expect(await riderAt(a)).toEqual(along(0.2));
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import supertest from 'supertest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { demoCatalogWith, newKey, orderBody, REEM } from '../support/orders.js';
import {
  ApiSpecification,
  existingOrder,
  expectError,
  expectNewEvents,
  expectResponse,
  orderEvents as e,
  orderStream,
  placedOrder,
} from '../support/api-spec.js';
import { waitFor } from '../support/wait.js';
import { settledHead } from '../support/webhook-events.js';
import { sha256Hex } from '../../src/shared/ids.js';
import { answeredOnceDurable } from '../support/held-disk.js';
import { WrongExpectedRevisionError } from '../../src/ports/event-store.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService({ env: { ADMIN_TOKEN } });
  // Manual acceptance, so live flows move only when the test says so.
  const catalog = demoCatalogWith({ [REEM.store_id]: { auto_accept: false } });
  catalog.offers.push({
    id: 'off-reem-all-free',
    scope: 'store',
    store_id: REEM.store_id,
    title: 'Everything free with ALLFREE',
    title_ar: null,
    kind: 'fixed',
    amount: 1_000_000,
    currency: 'KWD',
    min_subtotal: 0,
    max_discount: null,
    promo_code: 'ALLFREE',
    starts_at: '2020-01-01T00:00:00Z',
    ends_at: '2099-12-31T23:59:59Z',
  });
  await t.service.services.catalog.import(catalog);
  p = await t.partner();
});
afterAll(() => t.close());

const given = ApiSpecification.for(() => t);
const now = () => t.clock.now().toISOString();
const RIDER = { name: 'Ahmed', phone: '+96555512345', vehicle: 'car' };
/** The events of a cash delivery order from placed to delivered (the 1st, 2nd... step of its path). */
const DELIVERY_PATH = [
  e.accepted(),
  e.preparationStarted(),
  e.packed(),
  e.riderAssigned(RIDER),
  e.pickedUp(),
  e.delivered(),
];

async function place(key: string, over: Record<string, unknown> = {}): Promise<string> {
  const res = await t.http.post('/v1/orders').set(bearer(key)).set('Idempotency-Key', newKey()).send(orderBody(over));
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}
const pickup = () => {
  const body = orderBody({ fulfilment: 'pickup' });
  delete body.delivery_address;
  return body;
};
const advance = (id: string, key = p.sandbox) =>
  t.http.post(`/v1/sandbox/orders/${id}/advance`).set(bearer(key)).send({});
const ops = (id: string, action: string, body: Record<string, unknown> = {}) =>
  t.http.post(`/internal/orders/${id}/${action}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).send(body);
const cancel = (id: string, key = p.sandbox) =>
  t.http.post(`/v1/orders/${id}/cancel`).set(bearer(key)).send({ reason: 'customer changed their mind' });
const get = (id: string, key = p.sandbox) => t.http.get(`/v1/orders/${id}`).set(bearer(key));

describe('cancel', () => {
  it('when a request is refused on what it read (a repeat cancel, a payment of a cancelled order), then the refusal waits until that is durable', async () => {
    const placed = await place(p.sandbox, { payment_method: 'card' });
    expect((await cancel(placed)).status).toBe(200);
    // "The order is cancelled" acknowledges the first cancel as much as its own 200 did.
    const again = await answeredOnceDurable(t.stores.events, () => cancel(placed));
    expect([again.status, again.body.error.code]).toEqual([409, 'order_not_cancellable']);
    const pay = await answeredOnceDurable(t.stores.events, () =>
      t.http.post(`/v1/orders/${placed}/payment`).set(bearer(p.sandbox)).send({}),
    );
    expect([pay.status, pay.body.error.code]).toEqual([409, 'invalid_transition']);
  });

  it('when the order is placed or confirmed, then cancel answers 200 with the cancelled order; a repeat is 409', async () => {
    const placed = await place(p.sandbox);
    const res = await cancel(placed);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'cancelled',
      cancellation: { by: 'partner', reason: 'customer changed their mind' },
    });
    const again = await cancel(placed);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('order_not_cancellable');

    const confirmed = placedOrder(p.id, 'sandbox');
    await given(existingOrder(confirmed, e.accepted('sandbox')))
      .when((http) => http.post(`/v1/orders/${confirmed.order_id}/cancel`).set(bearer(p.sandbox)))
      .then([
        expectResponse(200, { body: { data: { status: 'cancelled', cancellation: { by: 'partner', reason: null } } } }),
        expectNewEvents(orderStream(confirmed.order_id), [
          { type: 'OrderCancelled', data: { by: 'partner', reason: null, at: now() } },
        ]),
      ]);
  });

  it.each([
    ['preparing', 2],
    ['ready', 3],
    ['ready', 4], // with a rider
    ['out_for_delivery', 5],
    ['delivered', 6],
  ])(
    'when the order is %s (%i steps along), then cancel is 409 order_not_cancellable and nothing changes',
    async (status, steps) => {
      const order = placedOrder(p.id, 'sandbox');
      const { order_id: id } = order;
      // No new events: `then` checks the stream is as given.
      await given(existingOrder(order, ...DELIVERY_PATH.slice(0, steps)))
        .when(() => cancel(id))
        .then(expectError(409, { code: 'order_not_cancellable' }));
      expect((await get(id)).body.data.status).toBe(status);
    },
  );

  it('when ten cancels race on one order, then exactly one wins', async () => {
    const id = await place(p.sandbox);
    const results = await Promise.all(Array.from({ length: 10 }, () => cancel(id)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
  });
});

describe('sandbox advance', () => {
  it('when advanced along the delivery path, then it walks to delivered and then refuses with 409', async () => {
    const id = await place(p.sandbox);
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await advance(id);
      expect(res.status).toBe(200);
      seen.push(res.body.data.status);
    }
    expect(seen).toEqual(['confirmed', 'preparing', 'ready', 'out_for_delivery', 'delivered']);
    const order = (await get(id)).body.data;
    expect(order.payment.status).toBe('paid');
    const end = await advance(id);
    expect(end.status).toBe(409);
    expect(end.body.error.code).toBe('invalid_transition');
  });

  it('when advanced along the pickup path, then it ends at completed', async () => {
    const res = await t.http.post('/v1/orders').set(bearer(p.sandbox)).set('Idempotency-Key', newKey()).send(pickup());
    const id = res.body.data.id;
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) seen.push((await advance(id)).body.data.status);
    expect(seen).toEqual(['confirmed', 'preparing', 'ready', 'completed']);
    expect((await advance(id)).status).toBe(409);
  });

  it('when the order is cancelled, then advance is 409', async () => {
    const order = placedOrder(p.id, 'sandbox');
    await given(existingOrder(order, e.cancelled('partner', 'customer changed their mind')))
      .when(() => advance(order.order_id))
      .then(expectError(409, { code: 'invalid_transition' }));
  });

  it('when a live key advances any order (its own live one, a sandbox one, none), then 403 sandbox_only', async () => {
    for (const id of [await place(p.live), await place(p.sandbox), 'sbx_doesNotExist']) {
      const res = await advance(id, p.live);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('sandbox_only');
    }
  });

  it('when an unpaid card order is advanced, then 409 payment_pending', async () => {
    const id = await place(p.sandbox, { payment_method: 'card' });
    const res = await advance(id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('payment_pending');
  });
});

describe('card payments through the built-in checkout', () => {
  it('when a card order asks for payment, then each call returns a fresh link, and paying it marks the order paid', async () => {
    const id = await place(p.sandbox, { payment_method: 'card' });
    const a = await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.sandbox)).send({});
    const b = await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.sandbox));
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({ object: 'payment_link', order_id: id, currency: 'KWD' });
    expect(a.body.data.url).not.toBe(b.body.data.url);
    const path = new URL(a.body.data.url).pathname;
    const page = await t.http.get(path);
    expect(page.status).toBe(200);
    expectCheckoutPageHeaders(page);
    // Amounts with the currency's decimals (as everywhere the service shows money to a person).
    expect(page.text).toContain(`Pay ${(a.body.data.amount as number).toFixed(3)} KWD`);
    const paid = await t.http.post(`${path}/pay`);
    expect(paid.status).toBe(200);
    expectCheckoutPageHeaders(paid);
    expect((await get(id)).body.data.payment.status).toBe('paid');
    expect((await t.http.post(`${path}/pay`)).text).toContain('already used');
    // The other link, unused, has nothing left to pay: its page says so instead of offering Pay.
    const other = await t.http.get(new URL(b.body.data.url).pathname);
    expect(other.status).toBe(409);
    expect(other.text).toContain('needs no payment any more');
    expect(other.text).not.toContain('<form');
    const again = await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.sandbox));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('payment_not_required');
    expect((await advance(id)).body.data.status).toBe('confirmed');
  });

  it('when the payer declines, then payment is failed and a new link can still pay', async () => {
    const id = await place(p.sandbox, { payment_method: 'card' });
    const first = new URL((await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.sandbox))).body.data.url)
      .pathname;
    await t.http.post(`${first}/fail`);
    expect((await get(id)).body.data.payment.status).toBe('failed');
    const second = new URL((await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.sandbox))).body.data.url)
      .pathname;
    await t.http.post(`${second}/pay`);
    expect((await get(id)).body.data.payment.status).toBe('paid');
  });

  it('when the order keeps changing under a payment, then the payer gets a page to try again, and a retry pays', async () => {
    const id = await place(p.sandbox, { payment_method: 'card' });
    const path = new URL((await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.sandbox))).body.data.url).pathname;
    const conflict = new WrongExpectedRevisionError(`order-${id}`, 1, 2);
    const operate = vi.spyOn(t.service.services.orders, 'operate').mockRejectedValueOnce(conflict);
    try {
      const busy = await t.http.post(`${path}/pay`);
      expect(busy.status).toBe(409);
      expect(busy.headers['content-type']).toMatch(/^text\/html/);
      expect(busy.text).toContain('try again');
      expect((await get(id)).body.data.payment.status).toBe('pending');
    } finally {
      operate.mockRestore();
    }
    expect((await t.http.post(`${path}/pay`)).status).toBe(200);
    expect((await get(id)).body.data.payment.status).toBe('paid');
  });

  it('when a live card order asks for a payment link, then 422 payment_provider_unavailable, nothing written; the operator records its payment', async () => {
    const id = await place(p.live, { payment_method: 'card' });
    const before = await settledHead(t.service);
    const res = await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.live));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('payment_provider_unavailable');
    expect(res.body.error.message).toContain('not available in live');
    expect(await t.stores.events.headPosition()).toBe(before);
    expect((await get(id, p.live)).body.data.payment.status).toBe('pending');
    // The order's own refusals come first: a cash order, or one the operator recorded as paid.
    expect((await t.http.post(`/v1/orders/${await place(p.live)}/payment`).set(bearer(p.live))).body.error.code).toBe(
      'payment_not_required',
    );
    // Accepting it first is refused, saying how a live card order gets paid (no link).
    const accept = await ops(id, 'accept');
    expect(accept.body.error.code).toBe('payment_pending');
    expect(accept.body.error.message).toContain(`with the operations API's pay (POST /internal/orders/${id}/pay)`);
    expect((await ops(id, 'pay')).body.data.payment.status).toBe('paid');
    const paid = await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.live));
    expect(paid.status).toBe(409);
    expect(paid.body.error.code).toBe('payment_not_required');
  });

  it('when a live checkout link exists (another replica of an older build made it), then its page and its pay are 410, the order unpaid', async () => {
    const id = await place(p.live, { payment_method: 'card' });
    const sessionId = `cs_${'L'.repeat(32)}`;
    const at = t.clock.now();
    // The session such a replica writes: the stream is named by the link's hash (events.md).
    await t.stores.events.append(
      `checkout-${sha256Hex(sessionId).slice(0, 40)}`,
      [
        {
          type: 'CheckoutSessionCreated',
          data: {
            order_id: id,
            environment: 'live',
            amount: 2320,
            currency: 'KWD',
            description: 'An older link',
            expires_at: new Date(at.getTime() + 30 * 60_000).toISOString(),
            at: at.toISOString(),
          },
          metadata: { actor: 'system', environment: 'live', order_id: id, schema_version: 1 },
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const shown = await t.http.get(`/checkout/${sessionId}`);
    expect(shown.status).toBe(410);
    expect(shown.text).toContain('cannot take live payments');
    expect(shown.text).not.toContain('<form');
    const paid = await t.http.post(`/checkout/${sessionId}/pay`);
    expect(paid.status).toBe(410);
    expect((await get(id, p.live)).body.data.payment.status).toBe('pending');
  });

  it('when a promo code covers a card order entirely, then it is paid at placement (nothing due) and goes on without a link', async () => {
    const res = await t.http
      .post('/v1/orders')
      .set(bearer(p.sandbox))
      .set('Idempotency-Key', newKey())
      .send(orderBody({ payment_method: 'card', promo_code: 'ALLFREE' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'placed', payment: { method: 'card', status: 'paid' } });
    expect(res.body.data.pricing.total).toBe(0);
    const id = res.body.data.id as string;
    const link = await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.sandbox));
    expect(link.status).toBe(409);
    expect(link.body.error.code).toBe('payment_not_required');
    expect((await advance(id)).body.data.status).toBe('confirmed');
    const events = await t.http.get('/v1/events').query({ order_id: id }).set(bearer(p.sandbox));
    expect(events.body.data.map((e: { type: string }) => e.type).reverse()).toEqual([
      'order.created',
      'order.payment_updated',
      'order.status_changed',
    ]);
  });

  it('when the order is cash, then payment is 409 payment_not_required; unknown links are 404', async () => {
    const id = await place(p.sandbox);
    const res = await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.sandbox));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('payment_not_required');
    const unknown = await t.http.get('/checkout/cs_doesnotexist00000000000000');
    expect(unknown.status).toBe(404);
    expectCheckoutPageHeaders(unknown);
  });
});

/** A payment link is a capability: its pages are never framed, cached or passed on in a Referer. */
function expectCheckoutPageHeaders(res: { headers: Record<string, string> }) {
  expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(res.headers['content-security-policy']).toContain("form-action 'self'");
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['cache-control']).toBe('no-store');
}

describe('live operations (/internal)', () => {
  it('when the restaurant and rider act, then a live delivery order reaches delivered and cash becomes paid', async () => {
    const id = await place(p.live);
    expect((await ops(id, 'accept')).body.data.status).toBe('confirmed');
    expect((await ops(id, 'start')).body.data.status).toBe('preparing');
    expect((await ops(id, 'pickup')).status).toBe(409);
    expect((await ops(id, 'ready')).body.data.status).toBe('ready');
    const noRider = await ops(id, 'pickup');
    expect(noRider.status).toBe(409);
    expect(noRider.body.error.message).toContain('rider');
    expect((await ops(id, 'assign-rider', { name: 'Ahmed', phone: '+96555512345', vehicle: 'motorbike' })).status).toBe(
      200,
    );
    expect((await ops(id, 'rider-location', { lat: 29.335, lng: 48.08 })).status).toBe(200);
    expect((await ops(id, 'pickup')).body.data.status).toBe('out_for_delivery');
    const delivered = await ops(id, 'deliver');
    expect(delivered.body.data.status).toBe('delivered');
    expect(delivered.body.data.payment.status).toBe('paid');
  });

  it('when the rider is replaced, then tracking shows no position until the new rider reports one', async () => {
    const id = await place(p.live);
    for (const action of ['accept', 'start']) expect((await ops(id, action)).status).toBe(200);
    const track = async () => (await t.http.get(`/v1/orders/${id}/tracking`).set(bearer(p.live))).body.data.rider;
    expect((await ops(id, 'assign-rider', { name: 'Ali', phone: '+96551112222', vehicle: 'car' })).status).toBe(200);
    expect((await ops(id, 'rider-location', { lat: 29.34, lng: 48.08 })).status).toBe(200);
    expect((await track()).location).toMatchObject({ lat: 29.34, lng: 48.08 });
    t.clock.advance(1_000);
    expect((await ops(id, 'assign-rider', { name: 'Zed', phone: '+96551112229', vehicle: 'car' })).status).toBe(200);
    expect(await track()).toMatchObject({ name: 'Zed', location: null });
    t.clock.advance(1_000);
    expect((await ops(id, 'rider-location', { lat: 29.336, lng: 48.081 })).status).toBe(200);
    expect((await track()).location).toMatchObject({ lat: 29.336, lng: 48.081 });
  });

  it('when a live pickup order is collected, then it is completed', async () => {
    const res = await t.http.post('/v1/orders').set(bearer(p.live)).set('Idempotency-Key', newKey()).send(pickup());
    const id = res.body.data.id;
    for (const action of ['accept', 'start', 'ready']) expect((await ops(id, action)).status).toBe(200);
    expect((await ops(id, 'deliver')).status).toBe(409);
    expect((await ops(id, 'collect')).body.data.status).toBe('completed');
  });

  it('when support refunds part and then the rest, then the order goes partially_refunded then refunded', async () => {
    const order = placedOrder(p.id, 'live'); // total 2.320 KWD
    const stream = orderStream(order.order_id);
    const delivered = existingOrder(order, ...DELIVERY_PATH);
    const refund = (body: Record<string, unknown>) => () => ops(order.order_id, 'refund', body);
    await given(delivered)
      .when(refund({ amount: 1 }))
      .then([
        expectResponse(200, {
          body: {
            data: { status: 'partially_refunded', payment: { status: 'partially_refunded', refunded_amount: 1 } },
          },
        }),
        expectNewEvents(stream, [{ type: 'OrderRefunded', data: { amount: 1000, refunded_total: 1000, at: now() } }]),
      ]);
    // The refund above is the given of the next two.
    await given()
      .when(refund({ amount: 100 }))
      .then([expectError(422, { code: 'invalid_refund' }), expectNewEvents(stream, [])]);
    const rest = await given()
      .when(refund({}))
      .then([
        expectResponse(200, {
          body: { data: { status: 'refunded', payment: { status: 'refunded', refunded_amount: 2.32 } } },
        }),
        expectNewEvents(stream, [{ type: 'OrderRefunded', data: { amount: 1320, refunded_total: 2320, at: now() } }]),
      ]);
    expect(rest.body.data.payment.refunded_amount).toBe(rest.body.data.pricing.total);
  });

  it('when the restaurant cancels a preparing order, then it is cancelled (the partner could not)', async () => {
    const order = placedOrder(p.id, 'live');
    await given(existingOrder(order, e.accepted(), e.preparationStarted()))
      .when(() => ops(order.order_id, 'cancel', { reason: 'out of chicken' }))
      .then([
        expectResponse(200, {
          body: { data: { status: 'cancelled', cancellation: { by: 'restaurant', reason: 'out of chicken' } } },
        }),
        expectNewEvents(orderStream(order.order_id), [
          { type: 'OrderCancelled', data: { by: 'restaurant', reason: 'out of chicken', at: now() } },
        ]),
      ]);
  });

  it('when the admin token is missing or wrong, then 401; an unknown action is 400', async () => {
    const id = await place(p.live);
    expect((await t.http.post(`/internal/orders/${id}/accept`)).status).toBe(401);
    expect((await t.http.post(`/internal/orders/${id}/accept`).set(bearer(p.live))).status).toBe(401);
    // An unknown action is in no document (one operation per action): sent past t.http's document check.
    const unknown = await supertest(t.service.app.express)
      .post(`/internal/orders/${id}/teleport`)
      .set(bearer(ADMIN_TOKEN))
      .send({});
    expect(unknown.status).toBe(400);
    expect((await ops('ord_missing', 'accept')).status).toBe(404);
  });
});

describe('auto-accept', () => {
  it('when a store auto-accepts, then a live cash order is placed and then confirmed by itself', async () => {
    const id = await place(p.live, {
      store_id: 'kw-mutawa-pharmacy',
      items: [{ item_id: 'panadol-extra-24', quantity: 1 }],
      delivery_address: undefined,
      fulfilment: 'pickup',
    });
    const status = await waitFor(
      async () => {
        const s = (await get(id, p.live)).body.data.status as string;
        return s !== 'placed' && s;
      },
      { what: 'the order to leave placed' },
    );
    expect(status).toBe('confirmed');
  });
});

describe('isolation', () => {
  it("when another partner or the other environment uses an order's id, then every endpoint answers 404", async () => {
    const mine = await place(p.sandbox);
    const mineLive = await place(p.live);
    const other = await t.partner();
    const attempts = [
      [mine, other.sandbox],
      [mine, p.live],
      [mineLive, p.sandbox],
      [mineLive, other.live],
    ] as const;
    for (const [id, key] of attempts) {
      for (const res of [
        await get(id, key),
        await cancel(id, key),
        await t.http.post(`/v1/orders/${id}/payment`).set(bearer(key)),
        // A live key is refused by the sandbox endpoints before any order is looked up (403).
        ...(key.startsWith('svc_test_') ? [await advance(id, key)] : []),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('order_not_found');
        expect(JSON.stringify(res.body)).not.toContain('Fatima');
      }
    }
    expect((await get(mine)).body.data.status).toBe('placed');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCatalogWith, newKey, orderBody, REEM } from '../support/orders.js';
import { bearer, type TestPartner } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from '../http/webhooks-fixture.js';

// Regressions (issue "Hardening"), beside isolation.test.ts (which covers every order and delivery
// route by id): the list filters give another partner and the other environment nothing, and the
// webhook endpoint routes act on the caller's own endpoint only.

let ts: WebhookService;
let receiver: Receiver;
let a: TestPartner;
let b: TestPartner;
let orderId: string;
let deliveryId: string;

beforeAll(async () => {
  ts = await startWebhookService();
  await ts.service.services.catalog.import(demoCatalogWith({ [REEM.store_id]: { auto_accept: false } }));
  receiver = await startReceiver();
  a = await ts.partner('Partner A');
  b = await ts.partner('Partner B');
  await register(ts, a.sandbox, receiver.url);
  const placed = await ts.http
    .post('/v1/orders')
    .set(bearer(a.sandbox))
    .set('Idempotency-Key', newKey())
    .send(orderBody({ reference: 'filter-probe' }));
  expect(placed.status).toBe(201);
  orderId = placed.body.data.id;
  // The order.created delivery of A's order, once the dispatcher has made it.
  deliveryId = await waitFor(
    async () => {
      const list = await ts.http.get(`/v1/webhooks/deliveries?order_id=${orderId}`).set(bearer(a.sandbox));
      return (list.body.data as Array<{ id: string }>)[0]?.id;
    },
    { what: "the delivery of A's order.created" },
  );
});
afterAll(async () => {
  await receiver.close();
  await ts.close();
});

/** The answer with the parts that differ per request (request id, the id asked for) normalised. */
const normalised = (body: unknown, id: string) =>
  JSON.parse(
    JSON.stringify(body)
      .replaceAll(id, '<id>')
      .replace(/req_[0-9A-Za-z]+/g, '<request>'),
  );
/** An id of the same shape that was never issued. */
/** An id of the same form that names nothing (hex ids stay hex, so the cursor is well-formed). */
const missing = (id: string) =>
  `${id.slice(0, 4)}${(/^[0-9a-f]+$/.test(id.slice(4)) ? '0' : 'Z').repeat(id.length - 4)}`;

/** Every key but the owner's: the other partner's in both environments, and the owner's other environment. */
const others = () => [
  ['partner B sandbox', b.sandbox],
  ['partner B live', b.live],
  ['partner A live', a.live],
];

describe('list filters', () => {
  it('orders: by reference, status and creation time, the others find nothing of A', async () => {
    const queries = [
      'reference=filter-probe',
      'status=placed',
      'created_after=2000-01-01T00:00:00Z',
      'created_before=2100-01-01T00:00:00Z',
      'limit=100',
    ];
    for (const [who, key] of others()) {
      for (const q of queries) {
        const res = await ts.http.get(`/v1/orders?${q}`).set(bearer(key!));
        expect(res.status, `${who}: ${q}`).toBe(200);
        expect(JSON.stringify(res.body), `${who}: ${q}`).not.toContain(orderId);
        expect(JSON.stringify(res.body), `${who}: ${q}`).not.toContain('filter-probe');
      }
      // A cursor naming A's order is answered as one naming an order that does not exist.
      const after = await ts.http.get(`/v1/orders?starting_after=${orderId}`).set(bearer(key!));
      const none = await ts.http.get(`/v1/orders?starting_after=${missing(orderId)}`).set(bearer(key!));
      expect(after.status, `${who}: starting_after`).toBe(none.status);
      expect(normalised(after.body, orderId), `${who}: starting_after`).toEqual(
        normalised(none.body, missing(orderId)),
      );
    }
    // The owner finds it with each of them.
    for (const q of queries)
      expect(JSON.stringify((await ts.http.get(`/v1/orders?${q}`).set(bearer(a.sandbox))).body), q).toContain(orderId);
  });

  it('webhook deliveries: by order id, status and cursor, the others get an empty list', async () => {
    const status = (await ts.http.get(`/v1/webhooks/deliveries/${deliveryId}`).set(bearer(a.sandbox))).body.data
      .status as string;
    const queries = [`order_id=${orderId}`, `status=${status}`, 'limit=100'];
    for (const [who, key] of others()) {
      for (const q of queries) {
        const res = await ts.http.get(`/v1/webhooks/deliveries?${q}`).set(bearer(key!));
        expect(res.status, `${who}: ${q}`).toBe(200);
        expect(res.body.data, `${who}: ${q}`).toEqual([]);
      }
      const after = await ts.http.get(`/v1/webhooks/deliveries?starting_after=${deliveryId}`).set(bearer(key!));
      const none = await ts.http.get(`/v1/webhooks/deliveries?starting_after=${missing(deliveryId)}`).set(bearer(key!));
      expect(after.status, `${who}: starting_after`).toBe(none.status);
      expect(normalised(after.body, deliveryId), `${who}: starting_after`).toEqual(
        normalised(none.body, missing(deliveryId)),
      );
    }
  });
});

describe('webhook endpoint routes', () => {
  it("act on the caller's own endpoint: without one, test and rotate-secret are 409, and A's endpoint is untouched", async () => {
    const before = receiver.received.length;
    for (const [who, key] of others()) {
      const test = await ts.http.post('/v1/webhooks/test').set(bearer(key!)).send({});
      expect(test.status, who).toBe(409);
      expect(test.body.error.code, who).toBe('webhook_endpoint_not_configured');
      const rotate = await ts.http.post('/v1/webhooks/endpoint/rotate-secret').set(bearer(key!)).send({});
      expect(rotate.status, who).toBe(409);
      expect(rotate.body.error.code, who).toBe('webhook_endpoint_not_configured');
      expect(JSON.stringify([test.body, rotate.body])).not.toContain(receiver.url);
    }
    // B registering its own endpoint creates B's (201, a new secret), not an update of A's.
    const own = await ts.http
      .put('/v1/webhooks/endpoint')
      .set(bearer(b.sandbox))
      .send({ url: `${receiver.url}/b` });
    expect(own.status).toBe(201);
    const rotated = await ts.http.post('/v1/webhooks/endpoint/rotate-secret').set(bearer(b.sandbox)).send({});
    expect(rotated.body.data.url).toBe(`${receiver.url}/b`);
    // Nothing was sent to A's endpoint by all this.
    expect(receiver.received.slice(before).filter((r) => r.event.type === 'webhook.test')).toEqual([]);
  });
});

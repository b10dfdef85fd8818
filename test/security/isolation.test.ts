import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'superagent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCatalogWith, newKey, orderBody, REEM } from '../support/orders.js';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { settledHead } from '../support/webhook-events.js';

// Another partner's ids and the other environment's ids answer exactly like ids that do not exist:
// same status, same code, same message, and nothing of the order in the body. Nothing changes.

let t: TestService;
let a: TestPartner;
let b: TestPartner;
let receiver: http.Server;
const received: string[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.url ?? '');
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t = await startTestService({ env: { WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' } });
  // No auto-accept: nothing moves an order but the calls of this test.
  await t.service.services.catalog.import(demoCatalogWith({ [REEM.store_id]: { auto_accept: false } }));
  a = await t.partner({ name: 'Partner A' });
  b = await t.partner({ name: 'Partner B' });
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const CUSTOMER = { name: 'Private Person', phone: '+96550009876' };
async function place(
  key: string,
  over: Record<string, unknown> = {},
): Promise<{ id: string } & Record<string, unknown>> {
  const res = await t.http
    .post('/v1/orders')
    .set(bearer(key))
    .set('Idempotency-Key', newKey())
    .send(orderBody({ customer: CUSTOMER, reference: 'secret-ref-77', ...over }));
  expect(res.status).toBe(201);
  return res.body.data;
}

/** Every order-scoped endpoint, as the partner API offers them. */
const ORDER_ENDPOINTS: Array<[string, (id: string, key: string) => PromiseLike<Response>]> = [
  ['GET /v1/orders/{id}', (id, key) => t.http.get(`/v1/orders/${id}`).set(bearer(key))],
  ['GET /v1/orders/{id}/tracking', (id, key) => t.http.get(`/v1/orders/${id}/tracking`).set(bearer(key))],
  [
    'POST /v1/orders/{id}/cancel',
    (id, key) => t.http.post(`/v1/orders/${id}/cancel`).set(bearer(key)).send({ reason: 'not mine' }),
  ],
  ['POST /v1/orders/{id}/payment', (id, key) => t.http.post(`/v1/orders/${id}/payment`).set(bearer(key))],
  [
    'POST /v1/sandbox/orders/{id}/advance',
    (id, key) => t.http.post(`/v1/sandbox/orders/${id}/advance`).set(bearer(key)),
  ],
];

/** The body with the parts that differ per request (request id, the id itself) normalised. */
const normalised = (res: Response, id: string) =>
  JSON.parse(
    JSON.stringify(res.body)
      .replaceAll(id, '<id>')
      .replaceAll(res.body?.error?.request_id ?? '<none>', '<request>'),
  );

function expectNothingOf(order: Record<string, unknown>, res: Response): void {
  const text = JSON.stringify(res.body);
  expect(res.body.data).toBeUndefined();
  for (const secret of [order.order_number, CUSTOMER.name, CUSTOMER.phone, 'secret-ref-77', String(order.status)]) {
    expect(text).not.toContain(secret);
  }
}

describe("another partner's order ids and the other environment's", () => {
  it('every order, tracking, payment, cancel and advance endpoint answers 404 like a missing id, changing nothing', async () => {
    const aSandbox = await place(a.sandbox, { payment_method: 'card' });
    const aLive = await place(a.live);
    const aLiveCard = await place(a.live, { payment_method: 'card' });
    // One further along its path, so that advance/cancel would have something to do.
    expect(
      (await t.http.post(`/v1/sandbox/orders/${(await place(a.sandbox)).id}/advance`).set(bearer(a.sandbox))).status,
    ).toBe(200);
    const attempts: Array<[string, Record<string, unknown>, string]> = [
      ['partner B sandbox key on A sandbox order', aSandbox, b.sandbox],
      ['partner B live key on A live order', aLive, b.live],
      ['partner B live key on A live card order', aLiveCard, b.live],
      ['A live key on A sandbox order', aSandbox, a.live],
      ['A sandbox key on A live order', aLive, a.sandbox],
      ['B sandbox key on A live order', aLive, b.sandbox],
    ];
    const before = await settledHead(t.service);
    const snapshots = await Promise.all(
      [aSandbox, aLive, aLiveCard].map(
        async (o) =>
          (await t.http.get(`/v1/orders/${o.id}`).set(bearer(o.environment === 'live' ? a.live : a.sandbox))).body,
      ),
    );

    for (const [who, order, key] of attempts) {
      for (const [endpoint, call] of ORDER_ENDPOINTS) {
        const id = order.id as string;
        const res = await call(id, key);
        const missing = await call(`${id.slice(0, 4)}Nope${id.slice(8)}`, key);
        // A live key on a sandbox endpoint is refused before any order is looked up.
        const sandboxOnly = endpoint.includes('/sandbox/') && key.startsWith('svc_live_');
        expect(res.status, `${who}: ${endpoint}`).toBe(sandboxOnly ? 403 : 404);
        expect(res.body.error.code, `${who}: ${endpoint}`).toBe(sandboxOnly ? 'sandbox_only' : 'order_not_found');
        expect(normalised(res, id), `${who}: ${endpoint} differs from a missing id`).toEqual(
          normalised(missing, `${id.slice(0, 4)}Nope${id.slice(8)}`),
        );
        expectNothingOf(order, res);
      }
    }

    expect(await t.stores.events.headPosition(), 'a refused call appended events').toBe(before);
    const after = await Promise.all(
      [aSandbox, aLive, aLiveCard].map(
        async (o) =>
          (await t.http.get(`/v1/orders/${o.id}`).set(bearer(o.environment === 'live' ? a.live : a.sandbox))).body,
      ),
    );
    expect(after).toEqual(snapshots);
  });

  it('the order list and a reference search never show another partner or environment', async () => {
    const mine = await place(a.sandbox, { reference: 'list-probe-1' });
    for (const key of [b.sandbox, b.live, a.live]) {
      const res = await t.http.get('/v1/orders?reference=list-probe-1&limit=100').set(bearer(key));
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      const all = await t.http.get('/v1/orders?limit=100').set(bearer(key));
      expect(JSON.stringify(all.body)).not.toContain(mine.id);
      // A cursor of someone else's order gives nothing of it either.
      const cursor = await t.http.get(`/v1/orders?starting_after=${mine.id}`).set(bearer(key));
      expect(JSON.stringify(cursor.body)).not.toContain(CUSTOMER.name);
    }
  });

  it('webhook deliveries: another partner or environment gets 404 for a delivery id', async (ctx) => {
    const doc = t.service.app.openApiDocument() as { paths: Record<string, unknown> };
    if (!doc.paths['/v1/webhooks/deliveries']) {
      console.warn(
        '!!! SKIPPED webhook-delivery isolation: GET /v1/webhooks/deliveries is not in the served document yet',
      );
      ctx.skip();
      return;
    }
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const registered = await t.http.put('/v1/webhooks/endpoint').set(bearer(a.sandbox)).send({ url });
    expect(registered.status).toBe(201);
    const test = await t.http.post('/v1/webhooks/test').set(bearer(a.sandbox));
    expect(test.status).toBe(202);
    const delivery = test.body.data as { id: string };

    for (const key of [b.sandbox, b.live, a.live]) {
      const missingId = `${delivery.id.slice(0, 4)}Nope${delivery.id.slice(8)}`;
      for (const [call, label] of [
        [(id: string) => t.http.get(`/v1/webhooks/deliveries/${id}`).set(bearer(key)), 'GET'],
        [(id: string) => t.http.post(`/v1/webhooks/deliveries/${id}/redeliver`).set(bearer(key)), 'redeliver'],
      ] as const) {
        const res = await call(delivery.id);
        expect(res.status, label).toBe(404);
        expect(res.body.error.code).toBe('delivery_not_found');
        expect(res.body.data).toBeUndefined();
        expect(JSON.stringify(res.body)).not.toContain(url);
        expect(normalised(res, delivery.id)).toEqual(normalised(await call(missingId), missingId));
      }
      const list = await t.http.get('/v1/webhooks/deliveries').set(bearer(key));
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain(delivery.id);
    }
    // The owner still sees it.
    expect((await t.http.get(`/v1/webhooks/deliveries/${delivery.id}`).set(bearer(a.sandbox))).status).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCatalogWith, newKey, orderBody, REEM } from '../support/orders.js';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { listen, rawRequest, type Listening, type RawAnswer } from '../support/loopback-client.js';
import {
  expectStripeVerifies,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from '../http/webhooks-fixture.js';

// Regressions (issue "Hardening"): concurrent requests that must not make two of anything. Every
// request goes on its own connection to a real listener, all started before any is answered.

describe('orders', () => {
  let t: TestService;
  let p: TestPartner;
  let server: Listening;

  beforeAll(async () => {
    t = await startTestService();
    // No auto-accept: only the requests of a test move an order.
    await t.service.services.catalog.import(demoCatalogWith({ [REEM.store_id]: { auto_accept: false } }));
    p = await t.partner({ rateLimitPerMin: 100_000 });
    server = await listen(t.service.app.express);
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    rawRequest(server.base, {
      method: 'POST',
      path,
      headers: { ...bearer(p.sandbox), 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const orderStreams = async (ids: Iterable<string>) =>
    (await Promise.all([...new Set(ids)].map((id) => t.stores.events.listStreams({ prefix: `order-${id}` })))).flat();

  it('50 concurrent creates with one Idempotency-Key make one order, and all 50 answer with it', async () => {
    const key = newKey();
    const before = await t.stores.events.listStreams({ prefix: 'order-' });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        post('/v1/orders', orderBody({ reference: 'race-50' }), { 'Idempotency-Key': key }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s === 201),
      JSON.stringify(statuses),
    ).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
    const after = await t.stores.events.listStreams({ prefix: 'order-' });
    expect(after.length - before.length).toBe(1);
  });

  it('25 creates with body X and 25 with body Y on one key: one order, and the 25 of the other body are 409', async () => {
    const key = newKey();
    const x = orderBody({ reference: 'race-x' });
    const y = orderBody({ reference: 'race-y' });
    const sent: Array<['x' | 'y', Promise<RawAnswer>]> = [];
    for (let i = 0; i < 25; i++) {
      sent.push(['x', post('/v1/orders', x, { 'Idempotency-Key': key })]);
      sent.push(['y', post('/v1/orders', y, { 'Idempotency-Key': key })]);
    }
    const answers = await Promise.all(sent.map(async ([body, answer]) => ({ body, res: await answer })));
    const created = answers.filter((a) => a.res.status === 201);
    expect(created, JSON.stringify(answers.map((a) => [a.body, a.res.status]))).toHaveLength(1);
    const winner = created[0]!.body;
    const loser = winner === 'x' ? 'y' : 'x';
    for (const a of answers.filter((a) => a.body === winner)) {
      expect([200, 201]).toContain(a.res.status);
      expect(a.res.body.data.id).toBe(created[0]!.res.body.data.id);
      expect(a.res.body.data.reference).toBe(`race-${winner}`);
    }
    const conflicts = answers.filter((a) => a.body === loser);
    expect(conflicts.map((a) => a.res.status)).toEqual(Array(25).fill(409));
    for (const a of conflicts) expect(a.res.body.error.code).toBe('idempotency_conflict');
    expect(
      await orderStreams(answers.flatMap((a) => (a.res.body.data ? [a.res.body.data.id as string] : []))),
    ).toHaveLength(1);
  });

  it('cancels racing advances: every answer matches the log, and nothing happens to an order after it is cancelled', async () => {
    for (let round = 0; round < 5; round++) {
      const placed = await post('/v1/orders', orderBody({ reference: `race-cancel-${round}` }), {
        'Idempotency-Key': newKey(),
      });
      expect(placed.status).toBe(201);
      const id = placed.body.data.id as string;
      const calls: Array<['cancel' | 'advance', Promise<RawAnswer>]> = [];
      // Which kind is sent first alternates between rounds.
      const advance = (): ['advance', Promise<RawAnswer>] => ['advance', post(`/v1/sandbox/orders/${id}/advance`, {})];
      const cancel = (): ['cancel', Promise<RawAnswer>] => [
        'cancel',
        post(`/v1/orders/${id}/cancel`, { reason: 'race' }),
      ];
      for (let i = 0; i < 8; i++) calls.push(...(round % 2 ? [cancel(), advance()] : [advance(), cancel()]));
      const answers = await Promise.all(calls.map(async ([kind, answer]) => ({ kind, res: await answer })));
      for (const a of answers) expect([200, 409], `${a.kind}: ${a.res.text.slice(0, 200)}`).toContain(a.res.status);

      const events = (await t.stores.events.readStream(`order-${id}`)).map((e) => e.type);
      const cancels = answers.filter((a) => a.kind === 'cancel' && a.res.status === 200);
      const advances = answers.filter((a) => a.kind === 'advance' && a.res.status === 200);
      expect(cancels.length).toBeLessThanOrEqual(1);
      expect(events.filter((e) => e === 'OrderCancelled')).toHaveLength(cancels.length);
      // Each advance answered 200 is one event of the path; a cancel, when there is one, is the last event.
      expect(events.length).toBe(1 + advances.length + cancels.length);
      if (cancels.length) expect(events.at(-1)).toBe('OrderCancelled');
      const final = (await t.http.get(`/v1/orders/${id}`).set(bearer(p.sandbox))).body.data;
      if (cancels.length) expect(final.status).toBe('cancelled');
      else expect(final.status).not.toBe('cancelled');
      // Some answer of a successful call said the status the order has now.
      const said = answers.filter((a) => a.res.status === 200).map((a) => a.res.body.data.status as string);
      if (said.length) expect(said).toContain(final.status);
    }
  });
});

describe('webhook endpoint', () => {
  let ts: WebhookService;
  let receiver: Receiver;
  let server: Listening;

  beforeAll(async () => {
    ts = await startWebhookService();
    receiver = await startReceiver();
    server = await listen(ts.service.app.express);
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
    await ts.close();
  });

  it('20 concurrent first PUT /v1/webhooks/endpoint: one 201 with one secret, 19 updates, and that secret signs', async () => {
    const p = await ts.partner();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        rawRequest(server.base, {
          method: 'PUT',
          path: '/v1/webhooks/endpoint',
          headers: { ...bearer(p.sandbox), 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: receiver.url }),
        }),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created, JSON.stringify(answers.map((a) => a.status))).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(19);
    const secret = created[0]!.body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    for (const a of answers) {
      if (a.status === 200) expect(a.body.data).not.toHaveProperty('secret');
      expect(a.body.data.secret_hint).toBe(secret.slice(-4));
    }
    const count = receiver.received.length;
    const test = await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
    expect(test.status).toBe(202);
    const got = (await receiver.waitFor(count + 1, 30_000))[count]!;
    expect(got.event.type).toBe('webhook.test');
    expectStripeVerifies(got, secret, ts.clock);
  });
});

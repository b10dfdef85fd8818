import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { ADDRESS, newKey, orderBody, REEM } from '../support/orders.js';
import { IdempotencyKeys, idempotencyStream, requestHash } from '../../src/application/orders/idempotency.js';
import { settledHead } from '../support/webhook-events.js';
import { answeredOnceDurable } from '../support/held-disk.js';

let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner();
});
afterAll(() => t.close());

const post = (key: string, body: Record<string, unknown>, apiKey = p.sandbox) =>
  t.http.post('/v1/orders').set(bearer(apiKey)).set('Idempotency-Key', key).send(body);

describe('POST /v1/orders: idempotency', () => {
  it('when the same key and body are sent again, then 200 with the same order and Idempotent-Replayed: true', async () => {
    const key = newKey();
    const first = await post(key, orderBody());
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Same JSON with keys in another order is the same body.
    const again = await post(key, reordered(orderBody()));
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
  });

  it('when a replay comes after the order moved on, then it answers with the order as it is now', async () => {
    const key = newKey();
    const first = await post(key, orderBody());
    await t.http.post(`/v1/orders/${first.body.data.id}/cancel`).set(bearer(p.sandbox)).send({});
    const again = await post(key, orderBody());
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe('cancelled');
  });

  it('when the same key comes with a different body, then 409 idempotency_conflict and nothing is written', async () => {
    const key = newKey();
    await post(key, orderBody());
    const before = await settledHead(t.service);
    const res = await post(key, orderBody({ reference: 'another' }));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_conflict');
    expect(await t.stores.events.headPosition()).toBe(before);
  });

  it('when a retry carries the very same JSON, then it is answered as a replay; any other body with the key is validated and checked again', async () => {
    const key = newKey();
    const body = orderBody();
    const first = await post(key, body);
    // The retry is known by the bytes the first request sent (supertest sends JSON.stringify of the body).
    const ctx = { actor: 'partner' as const, partnerId: p.id, environment: 'sandbox' as const };
    expect((await t.service.services.orders.replay(ctx, key, JSON.stringify(body)))?.order_id).toBe(first.body.data.id);
    expect(await t.service.services.orders.replay(ctx, key, JSON.stringify(body, null, 1))).toBeNull();
    expect(
      await t.service.services.orders.replay({ ...ctx, environment: 'live' }, key, JSON.stringify(body)),
    ).toBeNull();
    for (let i = 0; i < 2; i++) {
      const again = await post(key, body);
      expect([again.status, again.headers['idempotent-replayed'], again.body.data.id]).toEqual([
        200,
        'true',
        first.body.data.id,
      ]);
    }
    const before = await settledHead(t.service);
    for (let i = 0; i < 2; i++) {
      const conflict = await post(key, { ...body, reference: 'another' });
      expect([conflict.status, conflict.body.error.code]).toEqual([409, 'idempotency_conflict']);
    }
    const invalid = await post(key, { ...body, tip: -1 });
    expect([invalid.status, invalid.body.error.code, invalid.body.error.param]).toEqual([
      400,
      'validation_error',
      'tip',
    ]);
    expect(await t.stores.events.headPosition()).toBe(before);
    // The same key and body from the other environment is another request: a new order.
    const live = await post(key, body, p.live);
    expect(live.status).toBe(201);
    expect(live.body.data.id).not.toBe(first.body.data.id);
  });

  it('when the same key is used by the other environment or another partner, then they do not collide', async () => {
    const key = newKey();
    const sandbox = await post(key, orderBody());
    const live = await post(key, orderBody(), p.live);
    const other = await t.partner();
    const theirs = await post(key, orderBody(), other.sandbox);
    expect([sandbox.status, live.status, theirs.status]).toEqual([201, 201, 201]);
    expect(new Set([sandbox.body.data.id, live.body.data.id, theirs.body.data.id]).size).toBe(3);
  });

  it('when twenty requests with one key arrive at once, then exactly one order exists and all of them answer with it', async () => {
    const key = newKey();
    const results = await Promise.all(Array.from({ length: 20 }, () => post(key, orderBody())));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 200)).toBe(true);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    const orders = await t.stores.events.listStreams({ prefix: `order-${results[0]!.body.data.id}` });
    expect(orders).toHaveLength(1);
  });

  it('when a request crashed after claiming its key, then the retry with the same key completes the order', async () => {
    const key = newKey();
    const body = orderBody();
    // The crashed request got as far as the claim: the key names an order that was never written.
    const claim = await new IdempotencyKeys(t.stores.events).claim(
      idempotencyStream('sandbox', p.id, key),
      { request_hash: requestHash(body), order_id: 'sbx_crashedclaim0000000001' },
      { partner_id: p.id, environment: 'sandbox', at: t.clock.now().toISOString() },
    );
    expect(claim.won).toBe(true);
    const retry = await post(key, body);
    expect(retry.status).toBe(201);
    expect(retry.body.data.id).toBe('sbx_crashedclaim0000000001');
    const replay = await post(key, body);
    expect(replay.status).toBe(200);
    expect(replay.body.data.id).toBe('sbx_crashedclaim0000000001');
  });
});

describe('POST /v1/orders: idempotency across the processes of the service', () => {
  /**
   * A second service on the same DATA_DIR and clock, as another process would be: it keeps none of
   * the claims made by `t`. (In this one OS process it also takes over the webhook sender's lease;
   * no endpoint is registered here, so nothing is sent.)
   */
  let other: TestService;
  beforeAll(async () => {
    other = await startTestService({ dataDir: t.dataDir, clock: t.clock });
  });
  afterAll(() => other?.stop());

  const postTo = (s: TestService, key: string, body: Record<string, unknown>) =>
    s.http.post('/v1/orders').set(bearer(p.sandbox)).set('Idempotency-Key', key).send(body);

  it('when a new key comes, then no stream of that key is read: the claim is appended expecting none', async () => {
    const reads = vi.spyOn(t.stores.events, 'readStream');
    const appends = vi.spyOn(t.stores.events, 'append');
    try {
      const key = newKey();
      expect((await post(key, orderBody())).status).toBe(201);
      const stream = idempotencyStream('sandbox', p.id, key);
      expect(reads.mock.calls.filter(([read]) => read === stream)).toEqual([]);
      const claims = appends.mock.calls.filter(([appended]) => appended === stream);
      expect(claims.map(([, events, options]) => [events.map((e) => e.type), options?.expectedRevision])).toEqual([
        [['IdempotencyKeyClaimed'], 'no_stream'],
      ]);
    } finally {
      reads.mockRestore();
      appends.mockRestore();
    }
  });

  it('when a retry reaches a process that does not keep its claim, then it answers with the order even though the body no longer prices', async () => {
    const point = { lat: 29.371, lng: 48.077839 }; // about 4 km from the store: in its delivery zone
    const quote = await t.http.get(`/v1/stores/${REEM.store_id}/delivery-quote`).query(point).set(bearer(p.sandbox));
    const body = orderBody({ delivery_address: { ...ADDRESS, location: point }, quote_id: quote.body.data.id });
    const key = newKey();
    const first = await postTo(t, key, body);
    expect(first.status).toBe(201);
    t.clock.advance(10 * 60 * 1000 + 1); // the quote has expired
    const fresh = await postTo(other, newKey(), body);
    expect([fresh.status, fresh.body.error.code]).toEqual([409, 'quote_expired']);

    const retry = await postTo(other, key, body);
    expect([retry.status, retry.headers['idempotent-replayed'], retry.body.data.id]).toEqual([
      200,
      'true',
      first.body.data.id,
    ]);
  });

  // At another process the claim's append is refused and the order command decides nothing; here,
  // the same body in other bytes (members reordered) misses the retry fast path and finds the claim kept.
  it.each([
    ['another process', () => other, (body: Record<string, unknown>) => body],
    ['this process, the body in other bytes', () => t, (body: Record<string, unknown>) => reordered(body)],
  ])(
    'when a retry at %s finds the order placed before, then it answers once the log is durable: it acknowledges the order too',
    async (_where, at, bytes) => {
      const key = newKey();
      const first = await postTo(t, key, orderBody());
      expect(first.status).toBe(201);
      const res = await answeredOnceDurable(at().stores.events, () => postTo(at(), key, bytes(orderBody())));
      expect([res.status, res.headers['idempotent-replayed'], res.body.data.id]).toEqual([
        200,
        'true',
        first.body.data.id,
      ]);
    },
  );

  it.each([
    ['another process', () => other],
    ['this process', () => t],
  ])(
    'when another body comes with a key claimed before, at %s, then the 409 waits until the claim is durable',
    async (_where, at) => {
      const key = newKey();
      expect((await postTo(t, key, orderBody())).status).toBe(201);
      const res = await answeredOnceDurable(at().stores.events, () =>
        postTo(at(), key, orderBody({ reference: 'another' })),
      );
      expect([res.status, res.body.error.code]).toEqual([409, 'idempotency_conflict']);
    },
  );

  it('when another body comes with a key claimed by another process, then 409 idempotency_conflict and nothing is written', async () => {
    const [keyA, keyB] = [newKey(), newKey()];
    for (const key of [keyA, keyB]) expect((await postTo(t, key, orderBody())).status).toBe(201);
    const before = await settledHead(t.service);
    // Each key comes to `other` once, so it keeps no claim of it: the claim is read after pricing
    // fails for one, and after its claim's append is refused for the other.
    const unpriced = await postTo(other, keyA, orderBody({ store_id: 'no-such-store' }));
    expect([unpriced.status, unpriced.body.error.code]).toEqual([409, 'idempotency_conflict']);
    const valid = await postTo(other, keyB, orderBody({ reference: 'another' }));
    expect([valid.status, valid.body.error.code]).toEqual([409, 'idempotency_conflict']);
    expect(await t.stores.events.headPosition()).toBe(before);
  });
});

/** The same JSON with every object's members in reverse order: equal as data, other bytes. */
function reordered(value: Record<string, unknown>): Record<string, unknown> {
  const flip = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(flip)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .reverse()
              .map(([k, inner]) => [k, flip(inner)]),
          )
        : v;
  return flip(value) as Record<string, unknown>;
}

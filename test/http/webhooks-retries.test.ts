import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestPartner } from '../support/service.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule.js';
import {
  expectStripeVerifies,
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from './webhooks-fixture.js';

let ts: WebhookService;
let receiver: Receiver;
beforeAll(async () => {
  ts = await startWebhookService({ webhooks: { timeoutMs: 300 } });
});
afterAll(() => ts.close());
afterEach(() => receiver?.close());

async function testDelivery(
  status: (n: number) => number,
  headers?: Record<string, string>,
): Promise<{ p: TestPartner; secret: string; id: string; startedAt: number }> {
  receiver = await startReceiver();
  receiver.reply = (n) => ({ status: status(n), ...(headers ? { headers } : {}) });
  const p = await ts.partner();
  const secret = await register(ts, p.sandbox, receiver.url);
  const startedAt = ts.clock.now().getTime();
  const res = await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
  expect(res.status).toBe(202);
  await receiver.waitFor(1);
  await ts.scheduler.runDue();
  return { p, secret, id: res.body.data.id as string, startedAt };
}

const delivery = async (p: TestPartner, id: string) =>
  (await ts.http.get(`/v1/webhooks/deliveries/${id}`).set(bearer(p.sandbox))).body.data;

describe('retries', () => {
  it('when the receiver fails 3 times, then it is retried after 1, 5 and 30 minutes, succeeds, and each attempt is logged', async () => {
    const { p, secret, id, startedAt } = await testDelivery((n) => (n < 3 ? 500 : 204));
    expect(await delivery(p, id)).toMatchObject({
      status: 'retrying',
      attempt_count: 1,
      next_attempt_at: new Date(startedAt + 60_000).toISOString(),
    });

    ts.clock.advance(59_000);
    await ts.scheduler.runDue();
    expect(receiver.received).toHaveLength(1); // not due yet

    ts.clock.advance(1000);
    await ts.scheduler.runDue();
    expect(receiver.received).toHaveLength(2);
    for (const wait of [5 * 60_000, 30 * 60_000]) {
      ts.clock.advance(wait);
      await ts.scheduler.runDue();
    }
    expect(receiver.received).toHaveLength(4);
    const d = await delivery(p, id);
    expect(d).toMatchObject({ status: 'succeeded', attempt_count: 4, next_attempt_at: null });
    const offsets = d.attempts.map((a: { at: string }) => Date.parse(a.at) - startedAt);
    expect(offsets).toEqual([0, 60_000, 6 * 60_000, 36 * 60_000]);
    expect(d.attempts.map((a: { status: number }) => a.status)).toEqual([500, 500, 500, 204]);
    expect(d.attempts[0].error).toBe('receiver answered HTTP 500');
    // Same event every time, signed afresh at each attempt's time.
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.headers['service-timestamp'])).size).toBe(4);
    expectStripeVerifies(receiver.received[3]!, secret, ts.clock);
    await ts.scheduler.runDue();
    expect(receiver.received).toHaveLength(4);
  });

  it('when the receiver always fails, then after the 7th attempt the delivery is failed; a redelivery then succeeds with the same event', async () => {
    let failing = true;
    const { p, secret, id, startedAt } = await testDelivery(() => (failing ? 503 : 200));
    for (const wait of RETRY_DELAYS_MS.slice(1)) {
      ts.clock.advance(wait);
      await ts.scheduler.runDue();
    }
    expect(receiver.received).toHaveLength(MAX_ATTEMPTS);
    const failed = await delivery(p, id);
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 7, next_attempt_at: null });
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(Date.parse(failed.attempts[6].at) - startedAt).toBe(total);
    ts.clock.advance(24 * 3600_000);
    await ts.scheduler.runDue();
    expect(receiver.received).toHaveLength(7); // nothing after failed

    failing = false;
    const res = await ts.http.post(`/v1/webhooks/deliveries/${id}/redeliver`).set(bearer(p.sandbox)).send({});
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, status: 'succeeded', attempt_count: 8 });
    expect(res.body.data.attempts[7]).toMatchObject({
      trigger: 'redelivery',
      status: 200,
      error: null,
      at: ts.clock.now().toISOString(),
    });
    const [first, last] = [receiver.received[0]!, receiver.received[7]!];
    expect(last.body).toBe(first.body);
    expect(last.headers['service-event-id']).toBe(first.headers['service-event-id']);
    expect(last.headers['service-signature']).not.toBe(first.headers['service-signature']);
    expectStripeVerifies(last, secret, ts.clock);
  });

  it('when the receiver answers after the reply wait, then the attempt failed with a timeout', async () => {
    receiver = await startReceiver();
    receiver.reply = () => ({ status: 200, delayMs: 3000 });
    const p = await ts.partner();
    await register(ts, p.sandbox, receiver.url);
    const res = await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
    await ts.scheduler.runDue();
    const d = await delivery(p, res.body.data.id);
    expect(d).toMatchObject({ status: 'retrying', attempt_count: 1 });
    expect(d.attempts[0]).toMatchObject({ status: null, error: expect.stringMatching(/timed out/) });
    expect(d.attempts[0].duration_ms).toBeLessThan(3000);
  });

  it('when the receiver redirects, then the redirect is not followed and the attempt failed', async () => {
    const target = await startReceiver();
    try {
      const { p, id } = await testDelivery(() => 302, { Location: target.url });
      const d = await delivery(p, id);
      // The status says what happened; the target is not repeated (see test/security/webhook-urls.test.ts).
      expect(d.attempts[0]).toMatchObject({
        status: 302,
        error: 'redirect not followed: webhooks must answer 2xx themselves',
      });
      expect(d.status).toBe('retrying');
      expect(target.received).toHaveLength(0);
    } finally {
      await target.close();
    }
  });
});

describe('the URL guard at delivery time', () => {
  it('when the registered name later resolves to a private address, then the attempt is refused before sending, with a short reason that names no address', async () => {
    const dns: Record<string, string[]> = { 'hooks.example.com': ['93.184.216.34'] };
    const guarded = await startWebhookService({
      env: { WEBHOOKS_ALLOW_PRIVATE_URLS: 'false' },
      webhooks: { resolve: async (host) => dns[host] ?? [] },
    });
    try {
      const p = await guarded.partner();
      await register(guarded, p.sandbox, 'https://hooks.example.com/orders');
      dns['hooks.example.com'] = ['10.0.0.1']; // DNS rebinding after registration
      const res = await guarded.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
      await guarded.scheduler.runDue();
      const d = (await guarded.http.get(`/v1/webhooks/deliveries/${res.body.data.id}`).set(bearer(p.sandbox))).body
        .data;
      expect(d).toMatchObject({ status: 'retrying', attempt_count: 1 });
      expect(d.attempts[0]).toMatchObject({ status: null, duration_ms: 0 });
      expect(d.attempts[0].error).toBe('refused before sending: host resolves to a non-public address');

      dns['hooks.example.com'] = ['::ffff:169.254.169.254'];
      guarded.clock.advance(60_000);
      await guarded.scheduler.runDue();
      const again = (await guarded.http.get(`/v1/webhooks/deliveries/${res.body.data.id}`).set(bearer(p.sandbox))).body
        .data;
      expect(again.attempts[1].error).toBe('refused before sending: host resolves to a non-public address');
    } finally {
      await guarded.close();
    }
  });
});

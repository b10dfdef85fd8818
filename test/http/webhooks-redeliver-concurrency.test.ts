import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, tempDataDir, type TestPartner } from '../support/service.js';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from './webhooks-fixture.js';

// Two replicas (two services on one DATA_DIR: one event log) answer redeliveries of the same
// delivery at once, as behind the compose proxy. Each accepted redelivery must be one recorded
// attempt, and every request the receiver gets must be one of them.

const REPLY_MS = 1500;
let a: WebhookService;
let b: WebhookService;
let receiver: Receiver;
let p: TestPartner;
let id: string;
let inFlight = 0;
let most = 0;

beforeAll(async () => {
  const dataDir = tempDataDir();
  // Replica ids of two hosts: both services run in this process, whose own pid would otherwise
  // tell each that the other's claims belong to a process that is gone.
  a = await startWebhookService({ dataDir, webhooks: { timeoutMs: 8000, lease: { holder: 'host-a/1/a' } } });
  b = await startWebhookService({
    dataDir,
    clock: a.clock,
    webhooks: { timeoutMs: 8000, lease: { holder: 'host-b/1/b' } },
  });
  receiver = await startReceiver();
  p = await a.partner();
  await register(a, p.sandbox, receiver.url);
  const res = await a.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
  id = res.body.data.id as string;
  await receiver.waitFor(1);
  await a.scheduler.runDue();
  receiver.reply = (_n, req) => {
    most = Math.max(most, ++inFlight);
    req.socket.once('close', () => inFlight--);
    return { status: 200, delayMs: REPLY_MS };
  };
}, 60_000);
afterAll(async () => {
  await receiver.close();
  await b.stop();
  await a.close();
});

describe('concurrent redeliveries of one delivery', () => {
  it('when 30 arrive at once on two replicas, then each one accepted is sent once and recorded as its own attempt, and the others get 409 delivery_in_progress', async () => {
    const before = (await a.http.get(`/v1/webhooks/deliveries/${id}`).set(bearer(p.sandbox))).body.data;
    expect(before.attempt_count).toBe(1);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? a : b).http.post(`/v1/webhooks/deliveries/${id}/redeliver`).set(bearer(p.sandbox)).send({}),
      ),
    );
    const accepted = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status !== 200);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) {
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.error.code).toBe('delivery_in_progress');
    }
    const after = (await a.http.get(`/v1/webhooks/deliveries/${id}`).set(bearer(p.sandbox))).body.data;
    // Every request the receiver got is a recorded attempt, and every accepted redelivery is one.
    expect(receiver.received).toHaveLength(after.attempt_count);
    expect(after.attempt_count).toBe(1 + accepted.length);
    expect(after.attempts.filter((x: { trigger: string }) => x.trigger === 'redelivery')).toHaveLength(accepted.length);
    // Each caller got the delivery with its own attempt last (not a stale copy).
    const counts = accepted.map((r) => r.body.data.attempt_count as number).sort((x, y) => x - y);
    expect(counts).toEqual(Array.from({ length: accepted.length }, (_, i) => i + 2));
    for (const r of accepted) expect(r.body.data.attempts.at(-1)).toMatchObject({ trigger: 'redelivery', status: 200 });
    expect(most).toBe(1);

    // Once the attempt has ended, the next redelivery is accepted and recorded too.
    const next = await b.http.post(`/v1/webhooks/deliveries/${id}/redeliver`).set(bearer(p.sandbox)).send({});
    expect(next.status).toBe(200);
    expect(next.body.data.attempt_count).toBe(after.attempt_count + 1);
    expect(receiver.received).toHaveLength(after.attempt_count + 1);
  }, 120_000);
});

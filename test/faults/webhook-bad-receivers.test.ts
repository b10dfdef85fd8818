import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from '../http/webhooks-fixture.js';
import { bearer, type TestPartner } from '../support/service.js';
import { newKey, orderBody } from '../support/orders.js';

/**
 * Endpoints that hang past the 8 s reply wait, answer 500, or reset the connection must not slow the
 * deliveries of other partners: each endpoint gets a bounded share of the sender.
 */
const ORDERS = 8;
let ts: WebhookService;
const receivers: Receiver[] = [];

beforeAll(async () => {
  ts = await startWebhookService();
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await ts.close();
});

async function partnerWith(reply: Receiver['reply']): Promise<{ p: TestPartner; r: Receiver }> {
  const r = await startReceiver();
  r.reply = reply;
  receivers.push(r);
  const p = await ts.partner();
  await register(ts, p.sandbox, r.url);
  return { p, r };
}

const place = (p: TestPartner) =>
  ts.http.post('/v1/orders').set(bearer(p.sandbox)).set('Idempotency-Key', newKey()).send(orderBody());

describe('bad receivers do not stall the others', () => {
  it('when endpoints hang, fail and reset, then a healthy partner still gets its events at once', async () => {
    const hang = await partnerWith(() => ({ status: 200, delayMs: 60_000 }));
    const failing = await partnerWith(() => ({ status: 500 }));
    const reset = await partnerWith((_n, req) => {
      req.socket.destroy();
      return { status: 200 };
    });
    const healthy = await partnerWith(() => ({ status: 200 }));

    for (const bad of [hang, failing, reset])
      for (let i = 0; i < ORDERS; i++) expect((await place(bad.p)).status).toBe(201);
    // The hanging endpoint now holds every connection it is allowed; the others keep failing fast.
    await hang.r.waitFor(1, 10_000);
    const started = performance.now();
    for (let i = 0; i < ORDERS; i++) expect((await place(healthy.p)).status).toBe(201);
    await healthy.r.waitFor(ORDERS, 5_000);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(5_000);

    // The failures are recorded as attempts with reasons, to be retried on the schedule.
    const log = await ts.http.get('/v1/webhooks/deliveries?limit=100').set(bearer(failing.p.sandbox));
    expect(log.status).toBe(200);
    expect(log.body.data.length).toBe(ORDERS);
    for (const d of log.body.data) {
      expect(d.status).toBe('retrying');
      expect(d.attempts[0].status).toBe(500);
    }
    const resetLog = await ts.http.get('/v1/webhooks/deliveries?limit=100').set(bearer(reset.p.sandbox));
    for (const d of resetLog.body.data) expect(d.attempts[0]?.error ?? 'pending').not.toBe(null);
    console.log(
      `healthy partner: ${ORDERS} events delivered in ${elapsed.toFixed(0)} ms while three endpoints misbehaved`,
    );
  }, 60_000);
});

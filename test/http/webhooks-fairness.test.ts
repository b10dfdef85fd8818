import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../support/service.js';
import { newKey, orderBody } from '../support/orders.js';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from './webhooks-fixture.js';

let ts: WebhookService;
let slow: Receiver;
let fast: Receiver;
let release: () => void;
const released = new Promise<void>((resolve) => (release = resolve));
beforeAll(async () => {
  // A long reply wait: the held requests must not time out however long the test takes to release them.
  ts = await startWebhookService({ webhooks: { scheduler: { concurrency: 4, perEndpoint: 2 }, timeoutMs: 60_000 } });
  [slow, fast] = await Promise.all([startReceiver(), startReceiver()]);
  // The slow endpoint holds its requests until the test releases them (a fixed delay would make
  // "served while the slow one was busy" depend on how fast the machine is).
  slow.reply = () => ({ status: 200, until: released });
});
afterAll(async () => {
  await Promise.all([slow.close(), fast.close()]);
  await ts.close();
});

const place = (key: string) =>
  ts.http.post('/v1/orders').set(bearer(key)).set('Idempotency-Key', newKey()).send(orderBody());

describe('bounded concurrency', () => {
  it('when one endpoint is slow with many events, then it holds at most its share of attempts and another partner is served at once', async () => {
    const a = await ts.partner('Slow');
    const b = await ts.partner('Fast');
    await register(ts, a.sandbox, slow.url);
    await register(ts, b.sandbox, fast.url);
    for (let i = 0; i < 5; i++) expect((await place(a.sandbox)).status).toBe(201);
    await slow.waitFor(2);
    expect((await place(b.sandbox)).status).toBe(201);
    const [served] = await fast.waitFor(1);
    release();

    const all = await slow.waitFor(5);
    const firstAnswer = Math.min(...all.map((r) => r.answeredAt ?? Infinity));
    // The other partner's event went out while the slow endpoint still held its attempts...
    expect(served!.arrivedAt).toBeLessThan(firstAnswer);
    // ...and the slow endpoint never had more than 2 requests open at once.
    for (const r of all) {
      const open = all.filter((o) => o.arrivedAt <= r.arrivedAt && (o.answeredAt ?? Infinity) > r.arrivedAt);
      expect(open.length).toBeLessThanOrEqual(2);
    }
    // Different orders still go out in parallel: two were open together.
    expect(all.filter((o) => o.arrivedAt < firstAnswer)).toHaveLength(2);
  });
});

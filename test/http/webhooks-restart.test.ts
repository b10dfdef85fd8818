import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { bearer, tempDataDir } from '../support/service.js';
import { placeOrder } from '../support/orders.js';
import { ManualClock } from '../../src/shared/clock.js';
import { register, startReceiver, startWebhookService, type Receiver } from './webhooks-fixture.js';

let receiver: Receiver | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await receiver?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('restart in the middle of a retry schedule', () => {
  it('when the service restarts on the same DATA_DIR, then the due retry is made once and nothing is sent twice', async () => {
    dataDir = tempDataDir();
    const clock = new ManualClock();
    receiver = await startReceiver();
    receiver.reply = (n) => ({ status: n < 2 ? 500 : 200 });

    const first = await startWebhookService({ dataDir, clock });
    const p = await first.partner();
    await register(first, p.sandbox, receiver.url);
    const placed = await placeOrder(first.http, p.sandbox);
    expect(placed.status).toBe(201);
    await receiver.waitFor(1);
    await first.scheduler.runDue();
    clock.advance(60_000);
    await first.scheduler.runDue();
    expect(receiver.received).toHaveLength(2);
    const before = (await first.http.get('/v1/webhooks/deliveries').set(bearer(p.sandbox))).body.data;
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({
      status: 'retrying',
      attempt_count: 2,
      next_attempt_at: new Date(clock.now().getTime() + 5 * 60_000).toISOString(),
    });
    await first.stop();

    clock.advance(5 * 60_000); // the third attempt falls due while the service is down
    const second = await startWebhookService({ dataDir, clock });
    try {
      expect(second.scheduler.pending()).toBe(1);
      await second.scheduler.runDue();
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((r) => r.event.id)).size).toBe(1);

      clock.advance(24 * 3600_000);
      await second.scheduler.runDue();
      expect(receiver.received).toHaveLength(3);
      const after = (await second.http.get('/v1/webhooks/deliveries').set(bearer(p.sandbox))).body.data;
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({
        id: before[0].id,
        status: 'succeeded',
        attempt_count: 3,
        next_attempt_at: null,
      });
      expect(after[0].attempts.map((a: { status: number }) => a.status)).toEqual([500, 500, 200]);
    } finally {
      await second.stop();
    }
  });
});

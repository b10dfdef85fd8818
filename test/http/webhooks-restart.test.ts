import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { bearer, tempDataDir } from '../support/service.js';
import { placeOrder } from '../support/orders.js';
import { ManualClock } from '../../src/shared/clock.js';
import { waitFor } from '../support/wait.js';
import type { ReadModelStore } from '../../src/ports/read-model-store.js';
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

/** The read-model store with every write of the webhook delivery log held until `open()`: a long catch-up. */
function heldDeliveryLog() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const wrap = (store: ReadModelStore): ReadModelStore =>
    new Proxy(store, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (prop !== 'put' || typeof value !== 'function') return value;
        return async (collection: string, ...rest: unknown[]) => {
          if (collection === 'webhook_deliveries') await opened;
          return (value as (...a: unknown[]) => unknown).call(target, collection, ...rest);
        };
      },
    });
  return { wrap, open };
}

describe('restart while the webhook delivery log catches up with the event log', () => {
  it('when its catch-up is long, then the service starts and answers at once, sends once caught up what was due and what came meanwhile, and a stop meanwhile is not held up', async () => {
    dataDir = tempDataDir();
    const clock = new ManualClock();
    receiver = await startReceiver();
    receiver.reply = (n) => ({ status: n < 1 ? 500 : 200 });
    const first = await startWebhookService({ dataDir, clock });
    const p = await first.partner();
    await register(first, p.sandbox, receiver.url);
    expect((await placeOrder(first.http, p.sandbox)).status).toBe(201);
    await receiver.waitFor(1); // failed: its retry falls due a minute later
    await first.stop();
    clock.advance(60_000);

    // The embedded read models start empty: the delivery log replays the event log, its writes held.
    const held = heldDeliveryLog();
    const second = await startWebhookService({ dataDir, clock, readModels: held.wrap, senderStarted: false });
    let senderStarted = false;
    void second.service.webhooks.lease.settled().then(() => (senderStarted = true));
    try {
      expect((await second.http.get('/v1/ping').set(bearer(p.sandbox))).status).toBe(200);
      expect((await placeOrder(second.http, p.sandbox)).status).toBe(201);
      expect(second.service.webhooks.lease.held()).toBe(true);
      await second.scheduler.runDue();
      expect([senderStarted, second.scheduler.pending(), receiver.received.length]).toEqual([false, 0, 1]);

      held.open();
      await second.service.webhooks.lease.settled();
      await second.scheduler.runDue(); // the retry that fell due while the service was down
      // Then the second order's event: nothing lost, nothing sent twice.
      await receiver.waitFor(3);
      const sent = receiver.received.map((r) => [r.event.type, r.event.id]);
      expect(sent[0]![0]).toBe('order.created');
      expect(sent).toEqual([sent[0], sent[0], ['order.created', expect.not.stringMatching(sent[0]![1]!)]]);
    } finally {
      await second.stop();
    }

    // Held again and not opened before the stop: the sender's start gives up and the lease is released.
    const third = heldDeliveryLog();
    const again = await startWebhookService({ dataDir, clock, readModels: third.wrap, senderStarted: false });
    const stopping = again.stop();
    const lastLeaseRecord = async () =>
      (await again.stores.events.readStream('lease-webhook-sender', { backwards: true, maxCount: 1 }))[0]?.type;
    await waitFor(async () => (await lastLeaseRecord()) === 'LeaseReleased', {
      what: 'the lease released while the delivery log is still held',
    });
    third.open(); // the read models' own stop waits for their catch-up
    await stopping;
  });
});

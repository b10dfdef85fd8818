import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { bearer, tempDataDir } from '../support/service.js';
import { placeOrder } from '../support/orders.js';
import { ManualClock } from '../../src/shared/clock.js';
import path from 'node:path';
import { waitFor } from '../support/wait.js';
import { MongoClient } from 'mongodb';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { MongoReadModelStore } from '../../src/adapters/mongodb/read-model-store.js';
import { webhookDeliveries } from '../../projections/webhook-deliveries.js';
import { requireMongoUrl, uniqueDbName, mongoReadStoreEnv } from '../support/mongo-server.js';
import type { ReadModelStore } from '../../src/ports/read-model-store.js';
import { register, startReceiver, startWebhookService, type Receiver } from './webhooks-fixture.js';
import { deferred } from '../support/deferred.js';

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
  const { promise: opened, resolve: open } = deferred();
  const held = { reached: false, open: () => open(), wrap: (store: ReadModelStore): ReadModelStore => store };
  held.wrap = (store) =>
    new Proxy(store, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (prop !== 'put' || typeof value !== 'function') return value;
        return async (collection: string, ...rest: unknown[]) => {
          if (collection === 'webhook_deliveries') {
            held.reached = true;
            await opened;
          }
          return (value as (...a: unknown[]) => unknown).call(target, collection, ...rest);
        };
      },
    });
  return held;
}

/** Makes the service another replica's standby: a live holder elsewhere has just renewed the webhook sender lease. */
async function leaseHeldElsewhere(dir: string): Promise<void> {
  const log = new SqliteEventStore({ file: path.join(dir, 'events.db'), synchronous: 'NORMAL' });
  await log.append(
    'lease-webhook-sender',
    [{ type: 'LeaseAcquired', data: { holder: 'elsewhere/1/other', ttl_ms: 10_000 }, metadata: {} }],
    { expectedRevision: 'any' },
  );
  await log.close();
}

/** Starts a service over `held`; resolves once it is built, after checking it was not built while the catch-up was held. */
async function startHeld(options: Parameters<typeof startWebhookService>[0] & object) {
  const held = heldDeliveryLog();
  let built = false;
  const starting = startWebhookService({ ...options, readModels: held.wrap }).then((s) => ((built = true), s));
  await waitFor(() => held.reached, { what: 'the catch-up at a held write of the delivery log' });
  // Not built for a second while held: a start that does not wait for the catch-up is built within
  // milliseconds (a slow machine can only make this miss such a start, never fail a correct one).
  await waitFor(() => built, { timeoutMs: 1000 }).catch(() => undefined);
  expect(built, 'built while its read models were still catching up').toBe(false);
  held.open();
  return starting;
}

describe('restart on a log its read models take long to catch up with', () => {
  it('when a replica starts, the sender or a standby, then it is served only once its read models have caught up, and the sender sends what fell due and what came since, once each', async () => {
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

    // The embedded read models start empty at every start: the delivery log replays the event log.
    const sender = await startHeld({ dataDir, clock });
    try {
      const listed = await sender.http.get('/v1/webhooks/deliveries').set(bearer(p.sandbox));
      expect(listed.body.data.map((d: { status: string }) => d.status)).toEqual(['retrying']);
      expect((await placeOrder(sender.http, p.sandbox)).status).toBe(201);
      await sender.service.webhooks.lease.settled();
      await sender.scheduler.runDue(); // the retry that fell due while the service was down
      await receiver.waitFor(3);
      const ids = receiver.received.map((r) => r.event.id);
      expect(receiver.received.map((r) => r.event.type)).toEqual(Array(3).fill('order.created'));
      expect(new Set(ids).size).toBe(2);
      expect(ids.filter((id) => id === ids[0])).toHaveLength(2); // the failed one again, the new order's once
    } finally {
      await sender.stop();
    }

    // Another replica, alive elsewhere, holds the sender lease: this one stands by, and waits alike.
    await leaseHeldElsewhere(dataDir);
    const standby = await startHeld({ dataDir, clock });
    try {
      expect(standby.service.webhooks.lease.held()).toBe(false);
      const listed = await standby.http.get('/v1/webhooks/deliveries').set(bearer(p.sandbox));
      expect(listed.body.data.map((d: { status: string }) => d.status)).toEqual(['succeeded', 'succeeded']);
    } finally {
      await standby.stop();
    }
  });
});

const mongoUrl = requireMongoUrl('restart with MongoDB read models far behind the log');

describe.skipIf(!mongoUrl)('restart with MongoDB read models, one far behind the log', () => {
  it('when the delivery log was reset, then the replica is served at once, and its reads wait for the delivery log as usual', async () => {
    dataDir = tempDataDir();
    const clock = new ManualClock();
    const dbName = uniqueDbName('restart_behind');
    const env = mongoReadStoreEnv(mongoUrl!, dbName);
    receiver = await startReceiver();
    const first = await startWebhookService({ dataDir, clock, env });
    const p = await first.partner();
    await register(first, p.sandbox, receiver.url);
    expect((await placeOrder(first.http, p.sandbox)).status).toBe(201);
    await receiver.waitFor(1);
    await first.stop();
    const client = await new MongoClient(mongoUrl!).connect();
    try {
      // As `projections reset --yes webhook-deliveries` leaves it: no documents, checkpoint 0.
      await new MongoReadModelStore(client.db(dbName)).reset(webhookDeliveries.name, webhookDeliveries.collection);
      await leaseHeldElsewhere(dataDir);

      const held = heldDeliveryLog();
      const standby = await startWebhookService({ dataDir, clock, env, readModels: held.wrap });
      try {
        await waitFor(() => held.reached, { what: 'the delivery log catching up, held' });
        expect((await standby.http.get('/v1/ping').set(bearer(p.sandbox))).status).toBe(200);
        held.open();
        const listed = await waitFor(async () => {
          const res = await standby.http.get('/v1/webhooks/deliveries').set(bearer(p.sandbox));
          return res.body.data?.length === 1 && res.body.data;
        });
        expect(listed[0].status).toBe('succeeded');
      } finally {
        await standby.stop();
      }
    } finally {
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
});

describe('a standby taking over while a redelivery it was asked for is in flight', () => {
  it('when that redelivery fails after the takeover, then the delivery keeps its retry schedule and is retried when due', async () => {
    dataDir = tempDataDir();
    const clock = new ManualClock();
    const { promise: held, resolve: release } = deferred();
    receiver = await startReceiver();
    // The first attempt fails; the redelivery is held open, then fails too; the retry succeeds.
    receiver.reply = (n) => (n === 0 ? { status: 500 } : n === 1 ? { status: 500, until: held } : { status: 200 });
    const lease = (holder: string) => ({ lease: { holder, ttlMs: 6 * 3600_000, tickMs: 3600_000 } });
    const holder = await startWebhookService({ dataDir, clock, webhooks: lease('host-a/1/a') });
    const p = await holder.partner();
    await register(holder, p.sandbox, receiver.url);
    expect((await placeOrder(holder.http, p.sandbox)).status).toBe(201);
    await receiver.waitFor(1);
    const standby = await startWebhookService({ dataDir, clock, webhooks: lease('host-b/2/b') });
    try {
      expect(standby.service.webhooks.lease.held()).toBe(false);
      const [delivery] = (await standby.http.get('/v1/webhooks/deliveries').set(bearer(p.sandbox))).body.data;
      expect(delivery.status).toBe('retrying');
      const redelivered = standby.http
        .post(`/v1/webhooks/deliveries/${delivery.id}/redeliver`)
        .set(bearer(p.sandbox))
        .send({})
        .then((res) => res);
      await receiver.waitFor(2);

      await holder.stop(); // releases the lease
      await standby.service.webhooks.lease.tick();
      await standby.service.webhooks.lease.settled();
      expect(standby.service.webhooks.lease.held()).toBe(true);
      release();
      await redelivered;

      clock.advance(3600_000);
      await standby.scheduler.runDue();
      expect(receiver.received).toHaveLength(3);
      const after = (await standby.http.get(`/v1/webhooks/deliveries/${delivery.id}`).set(bearer(p.sandbox))).body.data;
      expect(after).toMatchObject({ status: 'succeeded', attempt_count: 3 });
    } finally {
      release();
      await standby.stop();
    }
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MongoClient, type Db } from 'mongodb';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { MongoReadModelStore } from '../../src/adapters/mongodb/read-model-store.js';
import type { OrderEvent } from '../../src/domain/order/events.js';
import type { ReadModelStore, StoredDocument } from '../../src/ports/read-model-store.js';
import { LogPositionError } from '../../src/ports/event-store.js';
import type { AnyProjection } from '../../projections/index.js';
import { ordersList } from '../../projections/orders-list.js';
import { riderPositions } from '../../projections/rider-positions.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { ReadModels } from '../../src/application/read-models.js';
import { ev } from '../unit/order-fixtures.js';
import { requireMongoUrl, uniqueDbName } from '../support/mongo-server.js';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import { createLogger, type Logger } from '../../src/shared/logger.js';
import { deferred } from '../support/deferred.js';

const PROJECTIONS = [ordersList, riderPositions] as unknown as AnyProjection[];
const WAIT_MS = 15_000;

/** A read-model store that counts what the runner asks of it; `checkpoints: false` drops checkpoint writes (a crash before the batch was saved). */
class CountingStore implements ReadModelStore {
  gets = 0;
  puts = 0;
  lostRaces = 0;
  constructor(
    private readonly inner: ReadModelStore,
    private readonly checkpoints = true,
  ) {}
  get: ReadModelStore['get'] = (c, id) => (this.gets++, this.inner.get(c, id));
  put: ReadModelStore['put'] = async (c, next, seq) => {
    this.puts++;
    const ok = await this.inner.put(c, next, seq);
    if (!ok) this.lostRaces++;
    return ok;
  };
  find: ReadModelStore['find'] = (c, q) => this.inner.find(c, q);
  count: ReadModelStore['count'] = (c, w) => this.inner.count(c, w);
  saveCheckpoint: ReadModelStore['saveCheckpoint'] = async (p, pos) =>
    this.checkpoints ? this.inner.saveCheckpoint(p, pos) : undefined;
  checkpoint: ReadModelStore['checkpoint'] = (p) => this.inner.checkpoint(p);
  reset: ReadModelStore['reset'] = (p, c) => this.inner.reset(p, c);
  all: ReadModelStore['all'] = (c) => this.inner.all(c);
  pageById: ReadModelStore['pageById'] = (c, after, limit) => this.inner.pageById(c, after, limit);
  close = () => this.inner.close();
}

const mongoUrl = requireMongoUrl('projection runner (MongoDB read models)');
let client: MongoClient | undefined;
const dbs: Db[] = [];
afterAll(async () => {
  for (const db of dbs) await db.dropDatabase().catch(() => undefined);
  await client?.close();
});

const adapters: Array<[string, () => Promise<ReadModelStore>]> = [
  ['embedded (SQLite)', async () => new SqliteReadModelStore()],
];
if (mongoUrl) {
  adapters.push([
    'MongoDB',
    async () => {
      client ??= await new MongoClient(mongoUrl).connect();
      const db = client.db(uniqueDbName('runner'));
      dbs.push(db);
      return new MongoReadModelStore(db);
    },
  ]);
}

let dir: string;
let events: SqliteEventStore;
const running: ProjectionRunner[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runner-'));
  events = new SqliteEventStore({ file: path.join(dir, 'events.db'), synchronous: 'NORMAL' });
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  await events.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A runner stopped after the test; `deps` in place of the shared event store or a silent logger. */
function runner(
  projection: AnyProjection,
  store: ReadModelStore,
  deps: { events?: SqliteEventStore; logger?: Logger } = {},
): ProjectionRunner {
  const r = new ProjectionRunner(projection, { events, store, ...deps });
  running.push(r);
  return r;
}

/** A delivery order's whole life, appended in steps the way commands append them; returns the last position. */
async function appendOrder(n: number, steps: OrderEvent[][] = lifeOf(n)): Promise<bigint> {
  let position = 0n;
  const stream = `order-sbx_ord_${n}`;
  let revision: number | 'no_stream' =
    (await events.readStream(stream, { backwards: true, maxCount: 1 }))[0]?.revision ?? 'no_stream';
  for (const step of steps) {
    const metadata = { actor: 'system', partner_id: 'ptn_1', environment: 'sandbox' };
    const r = await events.append(
      stream,
      step.map((e) => ({ type: e.type, data: e.data as unknown as Record<string, unknown>, metadata })),
      { expectedRevision: revision },
    );
    revision = r.nextExpectedRevision;
    position = r.position;
  }
  return position;
}
const lifeOf = (n: number): OrderEvent[][] => [
  [ev.placed({ order_id: `sbx_ord_${n}`, reference: `ref-${n}` })],
  [ev.accepted()],
  [ev.started(), ev.rider()],
  [ev.packed()],
  [ev.pickedUp()],
  [ev.delivered()],
];

async function appendPositions(n: number, count: number, from = 0): Promise<bigint> {
  let position = 0n;
  for (let i = from; i < from + count; i++) {
    const at = new Date(Date.UTC(2026, 9, 12, 11, 0, i)).toISOString();
    const r = await events.append(
      `rider-sbx_ord_${n}`,
      [
        {
          type: 'RiderLocationUpdated',
          data: { order_id: `sbx_ord_${n}`, lat: 29 + i / 1000, lng: 48, at },
          metadata: {},
        },
      ],
      { expectedRevision: 'any' },
    );
    if (r.nextExpectedRevision === 0) await events.setStreamMaxCount(`rider-sbx_ord_${n}`, 50);
    position = r.position;
  }
  return position;
}

async function reachHead(...runners: ProjectionRunner[]): Promise<void> {
  const head = await events.headPosition();
  for (const r of runners) expect(await r.waitFor(head, WAIT_MS)).toBe(true);
}

/**
 * The event store, with a count of the subscriptions to the whole log that are not stopped and the
 * position each began after; `failAtStop`: each reports a failure once stopped.
 */
function countingSubscriptions(events: SqliteEventStore, { failAtStop = false } = {}) {
  let following = 0;
  const afters: bigint[] = [];
  const counted = new Proxy(events, {
    get(target, prop) {
      if (prop !== 'subscribeToAll') return Reflect.get(target, prop, target) as unknown;
      return (options: Parameters<SqliteEventStore['subscribeToAll']>[0]) => {
        afters.push(options.after ?? 0n);
        const subscription = target.subscribeToAll(options);
        following++;
        const stop = subscription.stop.bind(subscription);
        let stopped = false;
        subscription.stop = async () => {
          if (!stopped) following--;
          stopped = true;
          await stop();
          // Like a tailing reader whose handler was failing as it was stopped.
          if (failAtStop) options.onError?.(new Error('handler failed as its subscription stopped'));
        };
        return subscription;
      };
    },
  });
  return { counted, following: () => following, afters };
}

/** What an audit compares: ids, documents and per-stream revisions. */
const comparable = (docs: Array<StoredDocument<unknown>>) =>
  docs.map(({ id, doc, versions }) => ({ id, doc, versions }));

describe.each(adapters)('projection runner over the embedded event store, %s read models', (_name, open) => {
  it('when a runner is stopped and started again, then it resumes from its checkpoint and applies nothing twice', async () => {
    const store = new CountingStore(await open());
    const first = runner(ordersList, store);
    await first.start();
    for (let n = 0; n < 5; n++) await appendOrder(n);
    await reachHead(first);
    await first.stop();
    const head = await events.headPosition();
    expect(await store.checkpoint(ordersList.name)).toBe(head);

    const again = new CountingStore(store);
    const second = runner(ordersList, again);
    await second.start();
    expect(second.position).toBe(head);
    await appendOrder(5);
    await events.append('unrelated-1', [{ type: 'Noise', data: {}, metadata: {} }], { expectedRevision: 'any' });
    await reachHead(second);
    expect(again.gets).toBe(7); // only the new order's seven events were read: nothing before the checkpoint
    const docs = await store.all<{ status: string }>(ordersList.collection);
    expect(docs).toHaveLength(6);
    for (const d of docs) {
      expect(d.seq).toBe(7); // seven events per order, each absorbed exactly once
      expect(d.doc.status).toBe('delivered');
    }
  });

  it('when stopped while its start still waits for the checkpoint, then it never subscribes; a failed read is retried, not thrown', async () => {
    const inner = await open();
    const store = new CountingStore(inner);
    const { promise: gate, resolve: release } = deferred();
    let failNext = false;
    store.checkpoint = async (p) => {
      await gate;
      if (failNext) {
        failNext = false;
        throw new Error('store unreachable');
      }
      return inner.checkpoint(p);
    };
    const stopped = runner(ordersList, store);
    const starting = stopped.start();
    await stopped.stop();
    release();
    await starting;
    const control = runner(ordersList, new CountingStore(inner));
    await control.start();
    await appendOrder(0);
    await reachHead(control);
    expect(stopped.position).toBe(0n);
    expect(store.gets).toBe(0);
    await control.stop();

    // The checkpoint cannot be read once: start resolves, and the runner starts again by itself.
    failNext = true;
    const retrying = runner(ordersList, store);
    await retrying.start();
    await reachHead(retrying);
    await retrying.stop();
  });

  it('when a process dies before its checkpoint was saved, then the restart replays those events and they are no-ops', async () => {
    const inner = await open();
    const crashing = runner(ordersList, new CountingStore(inner, false));
    await crashing.start();
    for (let n = 0; n < 3; n++) await appendOrder(n);
    await reachHead(crashing);
    await crashing.stop();
    const before = await inner.all(ordersList.collection);
    expect(await inner.checkpoint(ordersList.name)).toBe(0n);

    const counting = new CountingStore(inner);
    const restarted = runner(ordersList, counting);
    await restarted.start();
    await reachHead(restarted);
    expect(counting.gets).toBe(21);
    expect(counting.puts).toBe(0);
    expect(await inner.all(ordersList.collection)).toEqual(before);
  });

  it('when a read model is rebuilt from zero, then its documents equal the ones the live run built', async () => {
    const store = await open();
    const live = PROJECTIONS.map((p) => runner(p, store));
    for (const r of live) await r.start();
    for (let n = 0; n < 4; n++) await appendOrder(n, lifeOf(n).slice(0, 3));
    // Order 0's rider stream ends up trimmed to its newest 50 positions; the live run saw all 60.
    for (let i = 0; i < 60; i++) {
      await appendPositions(0, 1, i);
      await reachHead(...live);
    }
    for (let n = 1; n < 4; n++) await appendPositions(n, 2);
    for (let n = 0; n < 4; n++) await appendOrder(n, lifeOf(n).slice(3));
    await reachHead(...live);
    const built = await Promise.all(PROJECTIONS.map((p) => store.all(p.collection)));
    expect(built[0]).toHaveLength(4);

    for (const r of live) await r.rebuild();
    await reachHead(...live);
    const rebuilt = await Promise.all(PROJECTIONS.map((p) => store.all(p.collection)));
    expect(comparable(rebuilt[0]!)).toEqual(comparable(built[0]!));
    expect(comparable(rebuilt[1]!)).toEqual(comparable(built[1]!));
    expect(rebuilt[0]!.map((d) => d.seq)).toEqual(built[0]!.map((d) => d.seq));
    // seq counts absorbed events: the trimmed rider stream gave the rebuild 10 fewer to absorb.
    expect(built[1]!.map((d) => d.seq)).toEqual(rebuilt[1]!.map((d, i) => d.seq + (i === 0 ? 10 : 0)));
  });

  it('when rebuilds are asked again while one is starting, then one subscription follows the log, none after stop, and the documents are what one rebuild builds', async () => {
    const store = await open();
    const { counted, following } = countingSubscriptions(events);
    const r = runner(ordersList, store, { events: counted });
    await r.start();
    for (let n = 0; n < 3; n++) await appendOrder(n, lifeOf(n).slice(0, 2));
    await reachHead(r);
    const built = comparable(await store.all(ordersList.collection));

    // Two and three operators' calls at once (POST /internal/projections/orders-list/rebuild).
    for (const calls of [2, 3]) await Promise.all(Array.from({ length: calls }, () => r.rebuild()));
    expect(following()).toBe(1);
    await appendOrder(3, lifeOf(3).slice(0, 2));
    await reachHead(r);
    const rebuilt = await store.all(ordersList.collection);
    expect(comparable(rebuilt.slice(0, 3))).toEqual(built);
    expect(rebuilt.map((d) => d.seq)).toEqual([2, 2, 2, 2]);
    await r.stop();
    expect(following()).toBe(0);
  });

  it('when a rebuild is asked of a stopped runner, then it resolves false and the read model stays as it was', async () => {
    const store = new CountingStore(await open());
    let resets = 0;
    const inner = store.reset;
    store.reset = (p, c) => (resets++, inner(p, c));
    const { counted, following } = countingSubscriptions(events);
    const r = runner(ordersList, store, { events: counted });
    await r.start();
    for (let n = 0; n < 2; n++) await appendOrder(n, lifeOf(n).slice(0, 2));
    await reachHead(r);
    await expect(r.rebuild()).resolves.toBe(true);
    await reachHead(r);
    const built = comparable(await store.all(ordersList.collection));
    await r.stop();

    await expect(r.rebuild()).resolves.toBe(false);
    expect(resets).toBe(1);
    expect(following()).toBe(0);
    expect(comparable(await store.all(ordersList.collection))).toEqual(built);
  });

  it('when a rebuild fails, then it throws and the runner follows the log again by itself, its documents complete', async () => {
    const inner = await open();
    const store = new CountingStore(inner);
    const r = runner(ordersList, store);
    await r.start();
    for (let n = 0; n < 3; n++) await appendOrder(n, lifeOf(n).slice(0, 2));
    await reachHead(r);
    const built = comparable(await inner.all(ordersList.collection));

    // The store is lost half-way through the reset: the documents are gone, the checkpoint is not.
    store.reset = async (p, c) => {
      store.reset = (p2, c2) => inner.reset(p2, c2);
      const kept = await inner.checkpoint(p);
      await inner.reset(p, c);
      await inner.saveCheckpoint(p, kept);
      throw new Error('store lost during the reset');
    };
    await expect(r.rebuild()).rejects.toThrow('store lost during the reset');
    await appendOrder(3, lifeOf(3).slice(0, 2));
    await reachHead(r);
    const after = await inner.all(ordersList.collection);
    expect(after).toHaveLength(4);
    expect(comparable(after.slice(0, 3))).toEqual(built);
    expect(r.subscribed).toBe(true);
  });

  it('when the runner is stopped while a rebuild starts its replay, then the rebuild resolves false and nothing follows the log', async () => {
    const store = new CountingStore(await open());
    const { counted, following } = countingSubscriptions(events);
    const r = runner(ordersList, store, { events: counted });
    await r.start();
    const { promise: asked, resolve: checkpointAsked } = deferred();
    const { promise: held, resolve: release } = deferred();
    const reset = store.reset;
    store.reset = async (p, c) => {
      await reset(p, c);
      const read = store.checkpoint;
      store.checkpoint = async (p2) => (checkpointAsked(), await held, read(p2));
    };
    const rebuilding = r.rebuild();
    await asked;
    await r.stop(); // a shutdown while the replay's start reads the checkpoint
    release();
    expect(await rebuilding, 'no replay was started').toBe(false);
    expect(following(), 'subscriptions after the stop').toBe(0);
  });

  it('when the runner is stopped while a rebuild resets its store, then it stays stopped once the reset is done', async () => {
    const store = new CountingStore(await open());
    const { counted, following } = countingSubscriptions(events);
    const r = runner(ordersList, store, { events: counted });
    await r.start();
    const { promise: asked, resolve: resetAsked } = deferred();
    let finish!: () => void;
    const inner = store.reset;
    store.reset = (p, c) => (resetAsked(), new Promise<void>((resolve) => (finish = resolve)).then(() => inner(p, c)));
    const rebuilding = r.rebuild();
    await asked;
    await r.stop(); // a shutdown while the reset runs
    finish();
    expect(await rebuilding, 'no replay was started').toBe(false);
    expect(following(), 'subscriptions after the stop').toBe(0);
  });

  it('when the subscription a rebuild stops reports a failure as it ends, then that is no restart: the replay from zero stands', async () => {
    const store = await open();
    const lines: LogLine[] = [];
    const logger = createLogger({ level: 'info', destination: jsonLineSink(lines) });
    const { counted: failingAtStop, afters } = countingSubscriptions(events, { failAtStop: true });
    const r = runner(ordersList, store, { events: failingAtStop, logger });
    await r.start();
    for (let n = 0; n < 3; n++) await appendOrder(n, lifeOf(n).slice(0, 2));
    await reachHead(r);
    const built = comparable(await store.all(ordersList.collection));
    await r.rebuild();
    await appendOrder(3, lifeOf(3).slice(0, 2));
    await reachHead(r);
    expect(lines.filter((l) => String(l.msg).startsWith('projection stopped'))).toEqual([]);
    expect(afters).toEqual([0n, 0n]);
    expect(comparable((await store.all(ordersList.collection)).slice(0, 3))).toEqual(built);
  });

  it('when a rebuild is asked while a shared catch-up is writing a document, then its reset waits for that write', async () => {
    for (let n = 0; n < 3; n++) await appendOrder(n, lifeOf(n).slice(0, 2));
    const page = await events.readAll({ after: 0n, maxCount: 100 });
    const controlStore = await open();
    const control = runner(ordersList, controlStore);
    await control.start();
    await reachHead(control);
    const expected = comparable(await controlStore.all(ordersList.collection));

    const store = new CountingStore(await open());
    const steps: string[] = [];
    const inner = { put: store.put, reset: store.reset };
    const { promise: asked, resolve: putAsked } = deferred();
    const { promise: held, resolve: releasePut } = deferred();
    store.put = async (c, next, seq) => {
      if (steps.length === 0) {
        steps.push('fed write begun');
        putAsked();
        await held;
      }
      const ok = await inner.put(c, next, seq);
      if (steps.length === 1) steps.push('fed write done');
      return ok;
    };
    const { promise: resetting, resolve: resetCalled } = deferred();
    store.reset = async (p, c) => {
      steps.push('reset');
      resetCalled();
      return inner.reset(p, c);
    };
    const r = runner(ordersList, store);
    await r.load();
    const feeding = r.feedPage(page);
    await asked;
    const rebuilding = r.rebuild();
    // Let the write go once the reset comes (it must not come first), or after a while: waiting, it never comes.
    await Promise.race([resetting, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    releasePut();
    await feeding;
    await rebuilding;
    await reachHead(r);
    expect(steps.slice(0, 3)).toEqual(['fed write begun', 'fed write done', 'reset']);
    expect(comparable(await store.all(ordersList.collection))).toEqual(expected);
  });

  it('when a rebuild fails after the runner was stopped, then it stays stopped: no restart is scheduled', async () => {
    const store = new CountingStore(await open());
    const lines: LogLine[] = [];
    const logger = createLogger({ level: 'info', destination: jsonLineSink(lines) });
    const r = runner(ordersList, store, { logger });
    await r.start();
    const { promise: asked, resolve: resetAsked } = deferred();
    let fail!: (err: Error) => void;
    store.reset = () => (resetAsked(), new Promise<void>((_, reject) => (fail = reject)));
    const rebuilding = r.rebuild();
    await asked;
    await r.stop(); // a shutdown while the reset hangs
    fail(new Error('store lost during the reset'));
    await expect(rebuilding).rejects.toThrow('store lost during the reset');
    expect(lines.filter((l) => String(l.msg).startsWith('projection stopped'))).toEqual([]);
  });

  it('when two runners of one projection share one store and run at the same time, then the documents are exactly what one runner builds', async () => {
    for (let n = 0; n < 10; n++) await appendOrder(n, lifeOf(n).slice(0, 2));
    const shared = new CountingStore(await open());
    const alone = await open();
    const pairs = PROJECTIONS.map((p) => [runner(p, shared), runner(p, shared)] as const);
    const single = PROJECTIONS.map((p) => runner(p, alone));
    await Promise.all([...pairs.flat(), ...single].map((r) => r.start()));
    // More events while both run: they race on the same documents.
    for (let n = 0; n < 10; n++) {
      await appendOrder(n, lifeOf(n).slice(2));
      await appendPositions(n, 3);
    }
    await reachHead(...pairs.flat(), ...single);
    for (const p of PROJECTIONS) {
      const one = await alone.all(p.collection);
      expect(one).toHaveLength(10);
      expect(await shared.all(p.collection)).toEqual(one); // ids, documents, versions and seq
    }
    if (_name === 'memory') expect(shared.lostRaces).toBeGreaterThan(0); // the race really happened
  });
});

describe('ReadModels: start on an existing log', () => {
  it('when the service starts, then the read models catch up in one shared pass over the log, then follow new events live', async () => {
    for (let n = 0; n < 20; n++) await appendOrder(n);
    await appendPositions(3, 5);
    const head = await events.headPosition();
    let readByAll = 0;
    const counted = Object.create(events) as SqliteEventStore;
    counted.readAll = async (o) => {
      const page = await events.readAll(o);
      readByAll += page.length;
      return page;
    };
    const store = new SqliteReadModelStore();
    const readModels = new ReadModels({ events: counted, store }, PROJECTIONS);
    await readModels.start();
    try {
      for (const p of PROJECTIONS) expect(await readModels.catchUp(p.name, WAIT_MS)).toBe(true);
      expect(readByAll).toBe(Number(head)); // each event read once, for both read models
      const alone = new SqliteReadModelStore();
      const separate = PROJECTIONS.map((p) => runner(p, alone));
      for (const r of separate) await r.start();
      await reachHead(...separate);
      for (const p of PROJECTIONS) expect(await store.all(p.collection)).toEqual(await alone.all(p.collection));

      await appendOrder(20, lifeOf(20).slice(0, 2));
      expect(await readModels.catchUp(ordersList.name, WAIT_MS)).toBe(true);
      expect((await store.get<{ status: string }>(ordersList.collection, 'sbx_ord_20'))!.doc.status).toBe('confirmed');
    } finally {
      await readModels.stop();
    }
    expect(await store.checkpoint(ordersList.name)).toBe(await events.headPosition());
  });

  it('when stopped while catching up, then it stops cleanly and a later start finishes the job', async () => {
    for (let n = 0; n < 30; n++) await appendOrder(n);
    const store = new SqliteReadModelStore();
    const first = new ReadModels({ events, store }, PROJECTIONS);
    await first.start();
    await first.stop();
    const second = new ReadModels({ events, store }, PROJECTIONS);
    await second.start();
    try {
      for (const p of PROJECTIONS) expect(await second.catchUp(p.name, WAIT_MS)).toBe(true);
      expect(await store.count(ordersList.collection, { status: 'delivered' })).toBe(30);
    } finally {
      await second.stop();
    }
  });
});

describe('ReadModels: checkpoints that are not in the log', () => {
  it('when a stored checkpoint is past the head (the event log was wiped under the read models), then start refuses and says what to do', async () => {
    for (let n = 0; n < 3; n++) await appendOrder(n);
    const store = new SqliteReadModelStore();
    const first = new ReadModels({ events, store }, PROJECTIONS);
    await first.start();
    for (const p of PROJECTIONS) expect(await first.catchUp(p.name, WAIT_MS)).toBe(true);
    await first.stop();
    const checkpoint = await store.checkpoint(ordersList.name);
    expect(checkpoint).toBeGreaterThan(0n);

    await events.close();
    fs.rmSync(path.join(dir, 'events.db'));
    events = new SqliteEventStore({ file: path.join(dir, 'events.db'), synchronous: 'NORMAL' });
    await appendOrder(7, lifeOf(7).slice(0, 1)); // a fresh log, with positions the read models have already passed
    const second = new ReadModels({ events, store }, PROJECTIONS);
    const refusal = await second.start().then(
      () => undefined,
      (err: unknown) => err,
    );
    await second.stop();
    expect(refusal).toBeInstanceOf(LogPositionError);
    expect((refusal as Error).message).toMatch(
      new RegExp(`^Position ${checkpoint} is past the head of the event log \\(1\\).*rebuild the read models`),
    );
  });
});

describe('ProjectionRunner.waitFor', () => {
  it('when the runner passes the position, then the promise resolves true and the write is readable', async () => {
    const store = new SqliteReadModelStore();
    const r = runner(ordersList, store);
    await r.start();
    const position = await appendOrder(1, lifeOf(1).slice(0, 1));
    expect(await r.waitFor(position, WAIT_MS)).toBe(true);
    expect((await store.get<{ status: string }>(ordersList.collection, 'sbx_ord_1'))!.doc.status).toBe('placed');
    // Events the projection does not read move its position too (read-your-writes waits on the log head).
    const other = await events.append('unrelated-1', [{ type: 'Noise', data: {}, metadata: {} }], {
      expectedRevision: 'any',
    });
    expect(await r.waitFor(other.position, WAIT_MS)).toBe(true);
    expect(await r.waitFor(1n, 0)).toBe(true);
  });

  it('when the position is never reached, then it resolves false after the timeout', async () => {
    const r = runner(ordersList, new SqliteReadModelStore());
    await r.start();
    expect(await r.waitFor(1_000n, 50)).toBe(false);
  });
});

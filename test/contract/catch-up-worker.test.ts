import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OrderEvent } from '../../src/domain/order/events.js';
import type { Logger } from '../../src/shared/logger.js';
import { ev } from '../unit/order-fixtures.js';

// The worker thread runs the built script (dist/src/composition/catch-up-worker.js; `npm test`
// builds first), so this suite drives the built modules, typed as their sources.
const dist = (module: string) => import(path.resolve('dist', module));
const { SqliteEventStore } = (await dist(
  'src/adapters/sqlite/event-store.js',
)) as typeof import('../../src/adapters/sqlite/event-store.js');
const { SqliteReadModelStore } = (await dist(
  'src/adapters/sqlite/read-model-store.js',
)) as typeof import('../../src/adapters/sqlite/read-model-store.js');
const { ReadModels } = (await dist(
  'src/application/read-models.js',
)) as typeof import('../../src/application/read-models.js');
const { PROJECTIONS } = (await dist('projections/index.js')) as typeof import('../../projections/index.js');

type EventStore = InstanceType<typeof SqliteEventStore>;
type Store = InstanceType<typeof SqliteReadModelStore>;

const WAIT_MS = 15_000;
const ORDERS = 400;
let dir: string;
let events: EventStore;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catch-up-worker-'));
  events = new SqliteEventStore({ file: path.join(dir, 'events.db'), synchronous: 'NORMAL' });
});
afterEach(async () => {
  await events.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const lifeOf = (n: number): OrderEvent[] => [
  ev.placed({ order_id: `sbx_ord_${n}`, reference: `ref-${n}` }),
  ev.accepted(),
  ev.started(),
  ev.rider(),
  ev.packed(),
  ev.pickedUp(),
  ev.delivered(),
];

/** Orders advanced one step at a time in turns, so each order's events are spread over every page of the log. */
async function fillLog(): Promise<void> {
  for (let step = 0; step < 7; step++) {
    // The webhook events they name make documents of the events API's read model, which is never split.
    const webhook_types = [step === 0 ? 'order.created' : 'order.status_changed'];
    const metadata = { actor: 'system', partner_id: 'ptn_1', environment: 'sandbox', webhook_types };
    for (let n = 0; n < ORDERS; n++) {
      const e = lifeOf(n)[step]!;
      await events.append(
        `order-sbx_ord_${n}`,
        [{ type: e.type, data: e.data as unknown as Record<string, unknown>, metadata }],
        {
          expectedRevision: step === 0 ? 'no_stream' : step - 1,
        },
      );
    }
    const at = `2026-10-12T11:00:0${step}.000Z`;
    await events.append(
      `rider-sbx_ord_${step}`,
      [{ type: 'RiderLocationUpdated', data: { order_id: `sbx_ord_${step}`, lat: 29, lng: 48, at }, metadata: {} }],
      {
        expectedRevision: 'any',
      },
    );
  }
}

/** Catches up the read models from the whole log into a fresh store and stops them; returns the store. */
async function rebuild(
  options: { events?: EventStore; workerCatchUpFrom?: number; logger?: Logger } = {},
): Promise<Store> {
  const store = new SqliteReadModelStore();
  for (const p of PROJECTIONS) store.ensureIndexes(p.collection, p.indexes ?? []);
  const readModels = new ReadModels({
    events: options.events ?? events,
    store,
    logger: options.logger,
    workerCatchUpFrom: options.workerCatchUpFrom,
  });
  await readModels.start();
  for (const p of PROJECTIONS) expect(await readModels.catchUp(p.name, WAIT_MS)).toBe(true);
  await readModels.stop();
  return store;
}

async function snapshot(store: Store) {
  return Promise.all(
    PROJECTIONS.map(async (p) => ({ docs: await store.all(p.collection), checkpoint: await store.checkpoint(p.name) })),
  );
}

const silent = (): Logger => ({ warn: vi.fn(), error: vi.fn(), info: vi.fn(), debug: vi.fn() }) as unknown as Logger;

describe('ReadModels: a catch-up of the embedded stores, whose every await is already settled', () => {
  it('when it replays a long log, then the event loop still turns: timers fire while it runs', async () => {
    await fillLog();
    const store = new SqliteReadModelStore();
    for (const p of PROJECTIONS) store.ensureIndexes(p.collection, p.indexes ?? []);
    // One thread only: the worker's batches would make it wait now and then, and hide the fault.
    const readModels = new ReadModels({ events, store, workerCatchUpFrom: Number.POSITIVE_INFINITY });
    let turns = 0;
    const ticker = setInterval(() => turns++, 1);
    try {
      await readModels.start();
      for (const p of PROJECTIONS) expect(await readModels.catchUp(p.name, WAIT_MS)).toBe(true);
      // A turn at least every 10 ms of work (TIME_SLICE_MS), a timer tick in most of them: about a
      // dozen for this log here, none at all when nothing yields.
      expect(turns).toBeGreaterThanOrEqual(2);
    } finally {
      clearInterval(ticker);
      await readModels.stop();
    }
  });
});

describe('ReadModels: a catch-up shared with a worker thread (embedded)', () => {
  it('when the log is long enough, then a worker projects part of the documents and the result is exactly the one-thread result', async () => {
    await fillLog();
    const plain = await rebuild({ workerCatchUpFrom: Number.POSITIVE_INFINITY });

    const store = new SqliteReadModelStore();
    for (const p of PROJECTIONS) store.ensureIndexes(p.collection, p.indexes ?? []);
    const imported = vi.spyOn(store, 'importRows');
    const readModels = new ReadModels({ events, store, workerCatchUpFrom: 1 });
    await readModels.start();
    try {
      for (const p of PROJECTIONS) expect(await readModels.catchUp(p.name, WAIT_MS)).toBe(true);
      expect(imported).toHaveBeenCalled();
      expect((await snapshot(store)).map((s) => s.docs)).toEqual((await snapshot(plain)).map((s) => s.docs));
      // Indexed columns of imported documents answer queries like written ones.
      expect(await store.count('orders', { status: 'delivered', partner_id: 'ptn_1' })).toBe(ORDERS);

      // After the catch-up it follows the log live as before.
      await events.append(
        'order-sbx_ord_0',
        [
          {
            type: 'OrderRefunded',
            data: { amount: 500, refunded_total: 500, at: '2026-10-12T12:00:00.000Z' },
            metadata: {},
          },
        ],
        { expectedRevision: 6 },
      );
      expect(await readModels.catchUp('orders-list', WAIT_MS)).toBe(true);
      expect((await store.get<{ status: string }>('orders', 'sbx_ord_0'))!.doc.status).toBe('partially_refunded');
    } finally {
      await readModels.stop();
    }
    expect(await snapshot(store)).toEqual(
      await snapshot(await rebuild({ workerCatchUpFrom: Number.POSITIVE_INFINITY })),
    );
  });

  it('when stopped while the worker runs, then it stops cleanly and a later start finishes the job', async () => {
    await fillLog();
    const store = new SqliteReadModelStore();
    for (const p of PROJECTIONS) store.ensureIndexes(p.collection, p.indexes ?? []);
    const first = new ReadModels({ events, store, workerCatchUpFrom: 1 });
    await first.start();
    await first.stop();
    const second = new ReadModels({ events, store, workerCatchUpFrom: 1 });
    await second.start();
    for (const p of PROJECTIONS) expect(await second.catchUp(p.name, WAIT_MS)).toBe(true);
    await second.stop();
    expect(await snapshot(store)).toEqual(
      await snapshot(await rebuild({ workerCatchUpFrom: Number.POSITIVE_INFINITY })),
    );
  });

  it('when the worker fails, then the catch-up goes on in this thread, reports it, and the result is the same', async () => {
    await fillLog();
    const broken = Object.create(events) as EventStore;
    Object.defineProperty(broken, 'localFile', { value: path.join(dir, 'missing', 'events.db') });
    const logger = silent();
    const store = await rebuild({ events: broken, workerCatchUpFrom: 1, logger });
    expect(logger.warn).toHaveBeenCalledWith(
      expect.objectContaining({ err: expect.any(Error) }),
      expect.stringContaining('catch-up worker failed'),
    );
    expect(await snapshot(store)).toEqual(
      await snapshot(await rebuild({ workerCatchUpFrom: Number.POSITIVE_INFINITY })),
    );
  });

  it('when the worker fails after some of its pages were written, then this thread reads the rest whole and the result is the same', async () => {
    await fillLog();
    const store = new SqliteReadModelStore();
    for (const p of PROJECTIONS) store.ensureIndexes(p.collection, p.indexes ?? []);
    const importRows = store.importRows.bind(store);
    let calls = 0;
    vi.spyOn(store, 'importRows').mockImplementation((collection, rows) => {
      if (++calls === 3) throw new Error('the worker is gone');
      importRows(collection, rows);
    });
    const logger = silent();
    const readModels = new ReadModels({ events, store, logger, workerCatchUpFrom: 1 });
    await readModels.start();
    for (const p of PROJECTIONS) expect(await readModels.catchUp(p.name, WAIT_MS)).toBe(true);
    await readModels.stop();
    expect(calls).toBe(3);
    expect(logger.warn).toHaveBeenCalledWith(
      { err: expect.objectContaining({ message: 'the worker is gone' }) },
      expect.stringContaining('catch-up worker failed'),
    );
    expect(await snapshot(store)).toEqual(
      await snapshot(await rebuild({ workerCatchUpFrom: Number.POSITIVE_INFINITY })),
    );
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import type { EventStore, ReadStreamOptions } from '../../src/ports/event-store.js';
import { OrderRepository, type LoadedOrder } from '../../src/application/orders/order-repository.js';
import { ORDER_STREAM_PREFIX, orderIdOf, orderStream, type OrderEvent } from '../../src/domain/order/events.js';
import { ev, TOTAL } from './order-fixtures.js';
import { eventually } from '../contract/event-store.contract.js';

/** A delivered cash order refunded in two parts: 9 events through most of the machine. */
const LIFE: OrderEvent[] = [
  ev.placed(),
  ev.accepted(),
  ev.started(),
  ev.packed(),
  ev.rider(),
  ev.pickedUp(),
  ev.delivered(),
  ev.refunded(500, 500),
  ev.refunded(TOTAL - 500, TOTAL),
];

let dir: string;
let stores: SqliteEventStore[];
/** Two connections to one file: `other` stands for another process appending to the same log. */
let here: SqliteEventStore;
let other: SqliteEventStore;
let n = 0;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'order-repository-'));
  const file = join(dir, 'events.db');
  stores = [
    new SqliteEventStore({ file, synchronous: 'NORMAL' }),
    new SqliteEventStore({ file, synchronous: 'NORMAL' }),
  ];
  [here, other] = stores as [SqliteEventStore, SqliteEventStore];
});
afterEach(async () => {
  for (const s of stores) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const newOrderId = () => `sbx_repo${++n}`;

async function appendAs(store: EventStore, orderId: string, events: OrderEvent[], after: number | 'no_stream') {
  const metadata = { partner_id: 'ptn_1', environment: 'sandbox', actor: 'restaurant' };
  await store.append(
    orderStream(orderId),
    events.map((e) => ({ type: e.type, data: { ...e.data }, metadata })),
    { expectedRevision: after },
  );
}

/** Counts the full reads (from revision 0) the repository makes, to see when it starts over. */
function countingStore(inner: EventStore) {
  const reads = { full: 0, tail: 0 };
  const store = Object.create(inner) as EventStore;
  store.readStream = (streamId: string, options?: ReadStreamOptions) => {
    if (options?.fromRevision) reads.tail++;
    else reads.full++;
    return inner.readStream(streamId, options);
  };
  return { store, reads };
}

const observable = (l: LoadedOrder) => ({
  order: l.state.order,
  value: l.state.snapshot.value,
  context: l.state.snapshot.context,
  revision: l.revision,
});

describe('OrderRepository: folded orders kept between loads', () => {
  it('when another process appends after a load, then the next load includes its events', async () => {
    const id = newOrderId();
    const repo = new OrderRepository(here);
    await appendAs(other, id, LIFE.slice(0, 2), 'no_stream');
    expect((await repo.load(id)).state.order?.status).toBe('confirmed');
    await appendAs(other, id, LIFE.slice(2, 4), 1);
    const again = await repo.load(id);
    expect(again.state.order?.status).toBe('ready');
    expect(again.revision).toBe(3);
    expect(again.state.order?.version).toBe(4);
  });

  it('for any split of a history into appends, with loads in between, every load equals a fold of the whole stream', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: LIFE.length }), { minLength: 1, maxLength: LIFE.length }),
        fc.array(fc.boolean(), { minLength: LIFE.length, maxLength: LIFE.length }),
        async (cuts, loadAfter) => {
          const id = newOrderId();
          const cached = new OrderRepository(here);
          const fresh = new OrderRepository(here, { cachedOrders: 0 });
          const bounds = [...new Set([...cuts, LIFE.length])].sort((a, b) => a - b);
          let from = 0;
          for (const [i, to] of bounds.entries()) {
            await appendAs(i % 2 ? other : here, id, LIFE.slice(from, to), from === 0 ? 'no_stream' : from - 1);
            from = to;
            if (loadAfter[i] || to === LIFE.length)
              expect(observable(await cached.load(id))).toEqual(observable(await fresh.load(id)));
          }
        },
      ),
      { numRuns: 40, seed: 11 },
    );
  });

  it('when an order is loaded again with nothing new, then only the tail is read and the same state comes back', async () => {
    const id = newOrderId();
    const { store, reads } = countingStore(here);
    const repo = new OrderRepository(store);
    await appendAs(here, id, LIFE.slice(0, 3), 'no_stream');
    const first = await repo.load(id);
    const second = await repo.load(id);
    expect(second).toBe(first);
    expect(reads).toEqual({ full: 1, tail: 1 });
  });

  it('when more orders are loaded than it keeps, then the least recently used one is read in full again', async () => {
    const [a, b, c] = [newOrderId(), newOrderId(), newOrderId()];
    for (const id of [a, b, c]) await appendAs(here, id, LIFE.slice(0, 1), 'no_stream');
    const { store, reads } = countingStore(here);
    const repo = new OrderRepository(store, { cachedOrders: 2 });
    await repo.load(a);
    await repo.load(b);
    await repo.load(a); // a is now the most recent; b the least
    await repo.load(c); // evicts b
    expect(reads).toEqual({ full: 3, tail: 1 });
    await repo.load(a);
    await repo.load(b);
    expect(reads).toEqual({ full: 4, tail: 2 });
  });

  it('a loaded state is frozen: a caller cannot change what the next load returns', async () => {
    const id = newOrderId();
    const repo = new OrderRepository(here);
    await appendAs(here, id, LIFE.slice(0, 5), 'no_stream');
    const { state } = await repo.load(id);
    const order = state.order!;
    expect(() => {
      (order as { status: string }).status = 'delivered';
    }).toThrow(TypeError);
    expect(() => {
      order.lines[0]!.options.push({ id: 'x', group_id: 'g', name: 'x', price: 1 });
    }).toThrow(TypeError);
    expect(() => {
      (order.rider as { name: string }).name = 'someone else';
    }).toThrow(TypeError);
    expect(() => {
      (state.snapshot.context as { total: number }).total = 0;
    }).toThrow(TypeError);
    const again = await repo.load(id);
    expect(again.state.order?.status).toBe('ready');
    expect(again.state.order?.lines[0]?.options).toHaveLength(1);
  });

  it('when another process appended since the last load, then a command decides on the order as it is now', async () => {
    const id = newOrderId();
    const repo = new OrderRepository(here);
    await appendAs(here, id, LIFE.slice(0, 2), 'no_stream');
    await repo.load(id);
    await appendAs(other, id, LIFE.slice(2, 3), 1); // the kept state (revision 1) is now stale
    let attempts = 0;
    const handled = await repo.handle(
      id,
      { actor: 'restaurant' },
      () => LIFE[3]!.data.at,
      (state) => {
        attempts++;
        return state.order?.status === 'preparing' ? [LIFE[3]!] : [];
      },
    );
    expect(attempts).toBe(1);
    expect(handled.state.order?.status).toBe('ready');
    expect((await repo.load(id)).revision).toBe(3);
    expect((await here.readStream(orderStream(id))).map((e) => e.type)).toEqual(LIFE.slice(0, 4).map((e) => e.type));
  });

  it('after a command appends, the next load reads only what came after it, and equals a fresh fold', async () => {
    const id = newOrderId();
    const { store, reads } = countingStore(here);
    const repo = new OrderRepository(store);
    await appendAs(here, id, LIFE.slice(0, 2), 'no_stream');
    await repo.load(id);
    await repo.handle(
      id,
      { actor: 'restaurant' },
      () => LIFE[2]!.data.at,
      () => [LIFE[2]!],
    );
    expect(reads).toEqual({ full: 1, tail: 1 });
    const loaded = await repo.load(id);
    expect(reads).toEqual({ full: 1, tail: 2 });
    expect(loaded.revision).toBe(2);
    expect(observable(loaded)).toEqual(observable(await new OrderRepository(here, { cachedOrders: 0 }).load(id)));
  });

  it('a new stream is not read before its first append; if it exists after all, the command is decided again on it', async () => {
    const fresh = newOrderId();
    const { store, reads } = countingStore(here);
    const repo = new OrderRepository(store);
    const placed = await repo.handle(
      fresh,
      { actor: 'partner' },
      () => LIFE[0]!.data.at,
      (state) => (state.order ? [] : [LIFE[0]!]),
      { newStream: true },
    );
    expect(placed.events).toHaveLength(1);
    expect(reads).toEqual({ full: 0, tail: 0 });

    // Another writer placed it first: the no_stream append fails, and the next attempt reads it.
    const taken = newOrderId();
    await appendAs(other, taken, LIFE.slice(0, 1), 'no_stream');
    const again = await repo.handle(
      taken,
      { actor: 'partner' },
      () => LIFE[0]!.data.at,
      (state) => (state.order ? [] : [LIFE[0]!]),
      { newStream: true },
    );
    expect(again.events).toHaveLength(0);
    expect(again.state.order?.status).toBe('placed');
    expect((await here.readStream(orderStream(taken))).map((e) => e.type)).toEqual(['OrderPlaced']);
  });

  it('when a consumer of the same store reacts to an order a command has just placed, then it reads only the tail', async () => {
    const { store, reads } = countingStore(here);
    const repo = new OrderRepository(store);
    const group = here.consumerGroup({ group: 'reacts', filter: { streamPrefixes: [ORDER_STREAM_PREFIX] } });
    const seen: LoadedOrder[] = [];
    await group.start(async (e) => {
      seen.push(await repo.load(orderIdOf(e.streamId)!));
      return 'ack';
    });
    // The group has read to the head and waits for the next append.
    const skipped = await here.append('unrelated-1', [{ type: 'Noted', data: {}, metadata: {} }], {
      expectedRevision: 'no_stream',
    });
    await eventually(async () => (await group.position()) === skipped.position);

    const id = newOrderId();
    await repo.handle(
      id,
      { actor: 'partner' },
      () => LIFE[0]!.data.at,
      () => [LIFE[0]!],
      { newStream: true },
    );
    await eventually(() => seen.length === 1);
    await group.stop();
    // The commit woke the group only after the command had kept its fold.
    expect(reads).toEqual({ full: 0, tail: 1 });
    expect(seen[0]!.state.order?.status).toBe('placed');
  });
});

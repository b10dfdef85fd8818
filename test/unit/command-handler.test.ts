import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import {
  WrongExpectedRevisionError,
  type AppendOptions,
  type EventStore,
  type NewEvent,
} from '../../src/ports/event-store.js';
import { handleCommand, DEFAULT_RETRIES, type Evolver } from '../../src/application/command-handler.js';
import { eventMetadata } from '../../src/application/event-metadata.js';

// The one command path: read and fold, decide, append expecting the revision read, and on a
// conflict decide again on a fresh read (or hand the conflict back).

type Counted = { type: 'Counted'; data: { by: number; at: string } };
type Tally = { total: number; counts: number };

const tally: Evolver<Tally, Counted> = {
  initialState: () => ({ total: 0, counts: 0 }),
  evolve: (state, e) => ({ total: state.total + e.data.by, counts: state.counts + 1 }),
};
const counted = (by: number): Counted => ({ type: 'Counted', data: { by, at: '2026-11-21T12:00:00.000Z' } });
/** Counts by `by` unless the total would pass `limit`. */
const countUpTo = (by: number, limit: number) => (state: Tally) => (state.total + by > limit ? [] : [counted(by)]);
/** Names the state it was given, to show which state the metadata was built from. */
const metadata = (state: Tally) =>
  eventMetadata({
    actor: 'system',
    cause: { requestId: 'req_1' },
    owner: { partner_id: `ptn_${state.counts}`, environment: 'sandbox' },
  });

let dir: string;
let stores: SqliteEventStore[];
/** Two connections to one file: `other` stands for another writer. */
let here: SqliteEventStore;
let other: SqliteEventStore;
let n = 0;
let stream: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'command-handler-'));
  const file = join(dir, 'events.db');
  stores = [
    new SqliteEventStore({ file, synchronous: 'NORMAL' }),
    new SqliteEventStore({ file, synchronous: 'NORMAL' }),
  ];
  [here, other] = stores as [SqliteEventStore, SqliteEventStore];
  stream = `tally-${++n}`;
});
afterEach(async () => {
  for (const s of stores) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function given(events: Counted[]): Promise<void> {
  if (events.length === 0) return;
  await other.append(
    stream,
    events.map((e) => ({ type: e.type, data: { ...e.data }, metadata: {} })),
    { expectedRevision: 'any' },
  );
}

/** `inner`, where another writer appends `interlopers` more times, each just before one of our appends. */
function contested(inner: EventStore, interlopers: number) {
  const seen = { appends: [] as AppendOptions[] };
  const store = Object.create(inner) as EventStore;
  store.append = async (streamId: string, events: NewEvent[], options: AppendOptions) => {
    seen.appends.push(options);
    if (interlopers-- > 0)
      await other.append(streamId, [{ type: 'Counted', data: counted(1).data, metadata: {} }], {
        expectedRevision: 'any',
      });
    return inner.append(streamId, events, options);
  };
  return { store, seen };
}

const types = async () => (await here.readStream(stream)).map((e) => [e.type, e.data.by]);

describe('handleCommand', () => {
  it('given an empty stream, when a command decides events, then they are appended expecting no stream and folded into the answer', async () => {
    const { store, seen } = contested(here, 0);
    const handled = await handleCommand(store, stream, tally, countUpTo(2, 10), { metadata });
    expect(handled).toMatchObject({
      conflict: false,
      state: { total: 2, counts: 1 },
      events: [counted(2)],
      revision: 0,
    });
    expect(handled.position).toBe(await here.headPosition());
    expect(seen.appends).toEqual([{ expectedRevision: 'no_stream' }]);
    expect(await types()).toEqual([['Counted', 2]]);
  });

  it('given events, when a command runs, then it decides on their fold and appends after the last revision, with its metadata', async () => {
    await given([counted(3), counted(4)]);
    const { store, seen } = contested(here, 0);
    const handled = await handleCommand(store, stream, tally, countUpTo(2, 10), { metadata, durability: 'ordered' });
    expect(handled.state).toEqual({ total: 9, counts: 3 });
    expect(seen.appends).toEqual([{ expectedRevision: 1, durability: 'ordered' }]);
    const last = (await here.readStream(stream)).at(-1)!;
    expect(last.metadata).toEqual({
      partner_id: 'ptn_2',
      environment: 'sandbox',
      actor: 'system',
      request_id: 'req_1',
      correlation_id: 'req_1',
      causation_id: 'req_1',
      schema_version: 1,
    });
  });

  it('when the decision is to do nothing, then nothing is appended', async () => {
    await given([counted(9)]);
    const { store, seen } = contested(here, 0);
    const handled = await handleCommand(store, stream, tally, countUpTo(2, 10), { metadata });
    expect(handled).toEqual({
      conflict: false,
      state: { total: 9, counts: 1 },
      events: [],
      revision: 0,
      position: undefined,
    });
    expect(seen.appends).toEqual([]);
  });

  it('when another writer appends between the read and the append, then the command is decided again on a fresh read', async () => {
    await given([counted(5)]);
    const { store, seen } = contested(here, 2);
    const decided: number[] = [];
    const handled = await handleCommand(
      store,
      stream,
      tally,
      (state) => (decided.push(state.total), countUpTo(2, 10)(state)),
      { metadata },
    );
    expect(decided).toEqual([5, 6, 7]);
    expect(seen.appends.map((o) => o.expectedRevision)).toEqual([0, 1, 2]);
    expect(handled.state).toEqual({ total: 9, counts: 4 });
    expect(await types()).toEqual([
      ['Counted', 5],
      ['Counted', 1],
      ['Counted', 1],
      ['Counted', 2],
    ]);
  });

  it('when a fresh read changes the decision to nothing, then nothing is appended: no update is lost and none is made twice', async () => {
    await given([counted(8)]);
    const { store } = contested(here, 1);
    const handled = await handleCommand(store, stream, tally, countUpTo(2, 10), { metadata });
    expect(handled.events).toEqual([]);
    expect(await types()).toEqual([
      ['Counted', 8],
      ['Counted', 1],
    ]);
  });

  it(`when every attempt conflicts, then the conflict is thrown after ${DEFAULT_RETRIES} decisions again`, async () => {
    const { store, seen } = contested(here, Number.POSITIVE_INFINITY);
    await expect(handleCommand(store, stream, tally, countUpTo(1, 1000), { metadata })).rejects.toBeInstanceOf(
      WrongExpectedRevisionError,
    );
    expect(seen.appends).toHaveLength(DEFAULT_RETRIES + 1);
    const none = contested(here, Number.POSITIVE_INFINITY);
    await expect(
      handleCommand(none.store, stream, tally, countUpTo(1, 1000), { metadata, retries: 0 }),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(none.seen.appends).toHaveLength(1);
  });

  it('when a conflict is to be handed back, then it is decided once and returned with the state it was decided on', async () => {
    await given([counted(5)]);
    const { store, seen } = contested(here, 1);
    const handled = await handleCommand(store, stream, tally, countUpTo(2, 10), { metadata, onConflict: 'return' });
    expect(handled).toEqual({ conflict: true, state: { total: 5, counts: 1 } });
    expect(seen.appends).toHaveLength(1);
    expect(await types()).toEqual([
      ['Counted', 5],
      ['Counted', 1],
    ]);
  });

  it('given the stream as the caller read it, then the first decision is made on it without reading; a conflict reads', async () => {
    await given([counted(5)]);
    const reads: string[] = [];
    const { store } = contested(here, 0);
    const read = async () => (reads.push('read'), { state: { total: 5, counts: 1 }, revision: 0 });
    const first = await handleCommand(store, stream, tally, countUpTo(1, 10), {
      metadata,
      from: { state: { total: 5, counts: 1 }, revision: 0 },
      read,
    });
    expect([first.state, reads]).toEqual([{ total: 6, counts: 2 }, []]);
    // A stale `from` (revision 0, the stream is at 1): the append conflicts, and the next decision reads.
    const second = await handleCommand(store, stream, tally, countUpTo(1, 10), {
      metadata,
      from: { state: { total: 5, counts: 1 }, revision: 0 },
    });
    expect(second.state).toEqual({ total: 7, counts: 3 });
    expect(await types()).toEqual([
      ['Counted', 5],
      ['Counted', 1],
      ['Counted', 1],
    ]);
  });

  it('when the decision throws (a refusal), then it propagates and nothing is appended', async () => {
    await given([counted(5)]);
    const { store, seen } = contested(here, 0);
    const refuse = () => {
      throw new Error('refused');
    };
    await expect(handleCommand(store, stream, tally, refuse, { metadata })).rejects.toThrow('refused');
    expect(seen.appends).toEqual([]);
  });
});

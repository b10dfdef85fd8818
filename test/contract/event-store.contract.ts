import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  WrongExpectedRevisionError,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '../../src/ports/event-store.js';
import { streamPart } from '../../src/ports/event-filter.js';
import { deferred } from '../support/deferred.js';

/** How the suite reaches one backend. */
export interface EventStoreFixture {
  /** A new store instance on the same backend (another client, or another connection to the file). */
  open(): Promise<EventStore>;
  /** Closes every store this fixture opened and removes what it created. */
  cleanup(): Promise<void>;
  /** The backend holds only this fixture's events (embedded); false on a shared server. */
  isolated: boolean;
}

/** Polls a condition with a bound; for effects with no event to await. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const ev = (type: string, data: Record<string, unknown> = {}): NewEvent => ({
  type,
  data,
  metadata: { request_id: 'req_test', actor: 'partner', schema_version: 1 },
});

const types = (events: RecordedEvent[]): string[] => events.map((e) => e.type);

/** What a backend can promise, known before any fixture is made (to skip a test visibly). */
export interface EventStoreTraits {
  /** Consumer-group positions and retry counts are stored with every outcome (embedded); EventStoreDB's lag a little. */
  exactCheckpoints: boolean;
}

export function eventStoreContract(
  name: string,
  makeFixture: () => Promise<EventStoreFixture>,
  traits: EventStoreTraits,
): void {
  describe(`EventStore contract: ${name}`, () => {
    let fixture: EventStoreFixture;
    let store: EventStore;
    let ns: string; // every test writes its own streams, so a shared server works too
    const s = (suffix: string): string => `${ns}-${suffix}`;

    beforeEach(async () => {
      fixture = await makeFixture();
      store = await fixture.open();
      ns = `t${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    });
    afterEach(async () => fixture.cleanup());

    describe('append and readStream', () => {
      it('stores events with ids, revisions, data, metadata and increasing positions', async () => {
        const id = randomUUID();
        const result = await store.append(
          s('order-1'),
          [
            { ...ev('OrderPlaced', { total: { amount: 1250, currency: 'AED' }, items: [1, 2] }), id },
            ev('OrderConfirmed'),
          ],
          { expectedRevision: 'no_stream' },
        );
        expect(result.nextExpectedRevision).toBe(1);
        const events = await store.readStream(s('order-1'));
        expect(events.map((e) => [e.streamId, e.revision, e.type])).toEqual([
          [s('order-1'), 0, 'OrderPlaced'],
          [s('order-1'), 1, 'OrderConfirmed'],
        ]);
        const [placed, confirmed] = events as [RecordedEvent, RecordedEvent];
        expect(placed.id).toBe(id);
        expect(confirmed.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(placed.data).toEqual({ total: { amount: 1250, currency: 'AED' }, items: [1, 2] });
        expect(placed.metadata).toEqual({ request_id: 'req_test', actor: 'partner', schema_version: 1 });
        expect(placed.recordedAt).toBeInstanceOf(Date);
        expect(confirmed.position).toBeGreaterThan(placed.position);
        expect(result.position).toBe(confirmed.position);
      });

      it('returns [] for a stream that does not exist', async () => {
        expect(await store.readStream(s('missing'))).toEqual([]);
      });

      it('reads from a revision, a bounded count, and backwards', async () => {
        await store.append(
          s('order-1'),
          ['E0', 'E1', 'E2', 'E3', 'E4'].map((t) => ev(t)),
          { expectedRevision: 'no_stream' },
        );
        expect(types(await store.readStream(s('order-1'), { fromRevision: 2 }))).toEqual(['E2', 'E3', 'E4']);
        expect(types(await store.readStream(s('order-1'), { maxCount: 2 }))).toEqual(['E0', 'E1']);
        expect(types(await store.readStream(s('order-1'), { backwards: true }))).toEqual([
          'E4',
          'E3',
          'E2',
          'E1',
          'E0',
        ]);
        expect(types(await store.readStream(s('order-1'), { backwards: true, fromRevision: 3, maxCount: 2 }))).toEqual([
          'E3',
          'E2',
        ]);
      });

      it('reading from the revision after the last gives [] (a cached fold reads only the tail)', async () => {
        await store.append(s('order-1'), [ev('E0'), ev('E1')], { expectedRevision: 'no_stream' });
        expect(await store.readStream(s('order-1'), { fromRevision: 2 })).toEqual([]);
        await store.append(s('order-1'), [ev('E2')], { expectedRevision: 1 });
        expect(types(await store.readStream(s('order-1'), { fromRevision: 2 }))).toEqual(['E2']);
      });

      it('gives every read event its metadata, also through JSON and after assigning it', async () => {
        await store.append(s('order-1'), [ev('E0', { n: 1 }), ev('E1')], { expectedRevision: 'no_stream' });
        const [first, second] = (await store.readStream(s('order-1'))) as [RecordedEvent, RecordedEvent];
        const metadata = { request_id: 'req_test', actor: 'partner', schema_version: 1 };
        expect(first.metadata).toEqual(metadata);
        expect(first.metadata).toBe(first.metadata); // parsed once, then the same object
        const json = JSON.parse(JSON.stringify(first, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
        expect(json).toMatchObject({ id: first.id, type: 'E0', revision: 0, data: { n: 1 }, metadata });
        second.metadata = { replaced: true };
        expect(second.metadata).toEqual({ replaced: true });
        expect(second.data).toEqual({});
      });

      it('refuses an empty append', async () => {
        await expect(store.append(s('order-1'), [], { expectedRevision: 'any' })).rejects.toThrow(TypeError);
      });

      it('refuses a non-UUID event id, an empty type and a system stream, with the same errors on every adapter, and writes nothing', async () => {
        const refused = async (p: Promise<unknown>): Promise<string> => {
          const err = await p.then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err).toBeInstanceOf(TypeError);
          return (err as TypeError).message;
        };
        expect(
          await refused(store.append(s('order-1'), [{ ...ev('E0'), id: 'not-a-uuid' }], { expectedRevision: 'any' })),
        ).toBe('Event id must be a UUID, got "not-a-uuid"');
        expect(await refused(store.append(s('order-1'), [ev('E0'), ev('')], { expectedRevision: 'any' }))).toBe(
          'Event type must be a non-empty string',
        );
        expect(await refused(store.append('$system', [ev('E0')], { expectedRevision: 'any' }))).toBe(
          'Invalid stream id "$system": non-empty, not starting with "$"',
        );
        expect(await store.readStream(s('order-1'))).toEqual([]);
      });
    });

    describe('expected revision', () => {
      const wrong = async (p: Promise<unknown>): Promise<WrongExpectedRevisionError> => {
        const err = await p.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(WrongExpectedRevisionError);
        return err as WrongExpectedRevisionError;
      };

      it('"any" appends to a missing and to an existing stream', async () => {
        await store.append(s('a'), [ev('E0')], { expectedRevision: 'any' });
        const r = await store.append(s('a'), [ev('E1')], { expectedRevision: 'any' });
        expect(r.nextExpectedRevision).toBe(1);
      });

      it('"no_stream" fails on an existing stream, carrying the actual revision', async () => {
        await store.append(s('a'), [ev('E0'), ev('E1')], { expectedRevision: 'no_stream' });
        const err = await wrong(store.append(s('a'), [ev('E2')], { expectedRevision: 'no_stream' }));
        expect([err.streamId, err.expected, err.actual]).toEqual([s('a'), 'no_stream', 1]);
      });

      it('"stream_exists" fails on a missing stream and passes on an existing one', async () => {
        const err = await wrong(store.append(s('a'), [ev('E0')], { expectedRevision: 'stream_exists' }));
        expect(err.actual).toBe('no_stream');
        await store.append(s('a'), [ev('E0')], { expectedRevision: 'no_stream' });
        const r = await store.append(s('a'), [ev('E1')], { expectedRevision: 'stream_exists' });
        expect(r.nextExpectedRevision).toBe(1);
      });

      it('an exact revision passes when it is the last one and fails otherwise', async () => {
        await store.append(s('a'), [ev('E0'), ev('E1')], { expectedRevision: 'no_stream' });
        expect((await store.append(s('a'), [ev('E2')], { expectedRevision: 1 })).nextExpectedRevision).toBe(2);
        const stale = await wrong(store.append(s('a'), [ev('E3')], { expectedRevision: 1 }));
        expect([stale.expected, stale.actual]).toEqual([1, 2]);
        const missing = await wrong(store.append(s('b'), [ev('E0')], { expectedRevision: 0 }));
        expect(missing.actual).toBe('no_stream');
        expect(types(await store.readStream(s('a')))).toEqual(['E0', 'E1', 'E2']);
      });

      it('concurrent appends with the same expected revision: exactly one wins', async () => {
        await store.append(s('order-1'), [ev('Placed')], { expectedRevision: 'no_stream' });
        const other = await fixture.open();
        const attempts = [store, other, store, other].map((st, i) =>
          st.append(s('order-1'), [ev(`Change${i}`)], { expectedRevision: 0 }),
        );
        const results = await Promise.allSettled(attempts);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results.filter((x) => x.status === 'rejected')) {
          expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
          expect((r.reason as WrongExpectedRevisionError).actual).toBe(1);
        }
        expect(await store.readStream(s('order-1'))).toHaveLength(2);
      });

      it('concurrent "no_stream" claims: exactly one creates the stream', async () => {
        const other = await fixture.open();
        const claims = [store, other, store].map((st, i) =>
          st.append(s('idempotency-1'), [ev('KeyClaimed', { i })], { expectedRevision: 'no_stream' }),
        );
        const results = await Promise.allSettled(claims);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect(await store.readStream(s('idempotency-1'))).toHaveLength(1);
      });

      it("an 'ordered' append checks its revision like any other, is read back at once, and is in the log with the durable append after it", async () => {
        const before = await store.append(s('other'), [ev('Before')], { expectedRevision: 'no_stream' });
        const claim = await store.append(s('idempotency-2'), [ev('KeyClaimed')], {
          expectedRevision: 'no_stream',
          durability: 'ordered',
        });
        expect(types(await store.readStream(s('idempotency-2')))).toEqual(['KeyClaimed']);
        await expect(
          store.append(s('idempotency-2'), [ev('KeyClaimed')], {
            expectedRevision: 'no_stream',
            durability: 'ordered',
          }),
        ).rejects.toThrow(WrongExpectedRevisionError);
        const order = await store.append(s('order-2'), [ev('OrderPlaced')], { expectedRevision: 'no_stream' });
        // From the event before the claim: EventStoreDB reads the log only from an event's position.
        const page = await store.readAll({ after: before.position, maxCount: 10 });
        expect(page.map((e) => e.position)).toEqual(expect.arrayContaining([claim.position, order.position]));
      });
    });

    describe('whenDurable', () => {
      it("resolves after an 'ordered' append with no durable append after it, and again with nothing new", async () => {
        await store.append(s('idempotency-3'), [ev('KeyClaimed')], {
          expectedRevision: 'no_stream',
          durability: 'ordered',
        });
        await store.whenDurable();
        await store.whenDurable();
        expect(types(await store.readStream(s('idempotency-3')))).toEqual(['KeyClaimed']);
      });
    });

    describe('atomicity and global order', () => {
      it('an append that fails part-way writes none of its events', async () => {
        await store.append(s('a'), [ev('E0')], { expectedRevision: 'no_stream' });
        const unserialisable = ev('Bad', { n: 1n });
        await expect(store.append(s('a'), [ev('E1'), unserialisable], { expectedRevision: 0 })).rejects.toThrow();
        await expect(store.append(s('a'), [ev('E1'), ev('E2')], { expectedRevision: 5 })).rejects.toThrow(
          WrongExpectedRevisionError,
        );
        expect(types(await store.readStream(s('a')))).toEqual(['E0']);
      });

      it('orders events across streams by position, in commit order', async () => {
        const base = await store.headPosition();
        const r1 = await store.append(s('order-1'), [ev('A0')], { expectedRevision: 'no_stream' });
        const r2 = await store.append(s('order-2'), [ev('B0'), ev('B1')], { expectedRevision: 'no_stream' });
        const r3 = await store.append(s('order-1'), [ev('A1')], { expectedRevision: 0 });
        const all = await store.readAll({ after: base, filter: { streamPrefixes: [`${ns}-`] } });
        expect(types(all)).toEqual(['A0', 'B0', 'B1', 'A1']);
        const positions = all.map((e) => e.position);
        expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
        expect(new Set(positions).size).toBe(4);
        expect([r1.position, r2.position, r3.position]).toEqual([positions[0], positions[2], positions[3]]);
      });

      it('pages through readAll strictly after the given position', async () => {
        const base = await store.headPosition();
        await store.append(s('a'), [ev('A1')], { expectedRevision: 'no_stream' });
        await store.append(s('b'), [ev('B1')], { expectedRevision: 'no_stream' });
        await store.append(s('a'), [ev('A2')], { expectedRevision: 0 });
        await store.append(s('b'), [ev('B2')], { expectedRevision: 0 });
        await store.append(s('a'), [ev('A3')], { expectedRevision: 1 });
        const pages: string[][] = [];
        let after = base;
        for (;;) {
          const page = await store.readAll({ after, maxCount: 2, filter: { streamPrefixes: [`${ns}-`] } });
          if (page.length === 0) break;
          pages.push(types(page));
          after = page.at(-1)!.position;
        }
        expect(pages).toEqual([['A1', 'B1'], ['A2', 'B2'], ['A3']]);
        if (fixture.isolated) expect(types(await store.readAll({ maxCount: 3 }))).toEqual(['A1', 'B1', 'A2']);
      });

      it('filters readAll by stream prefixes, by event types, and by both', async () => {
        const base = await store.headPosition();
        const placed = `Placed${ns}`;
        await store.append(s('order-1'), [ev(placed), ev('Confirmed')], { expectedRevision: 'no_stream' });
        await store.append(s('idem-1'), [ev('KeyClaimed')], { expectedRevision: 'no_stream' });
        await store.append(s('rider-1'), [ev('RiderMoved'), ev(placed)], { expectedRevision: 'no_stream' });
        const read = async (filter: { streamPrefixes?: string[]; eventTypes?: string[] }): Promise<string[]> =>
          (await store.readAll({ after: base, filter })).map((e) => `${e.streamId.slice(ns.length + 1)}:${e.type}`);
        expect(await read({ streamPrefixes: [s('order-'), s('rider-')] })).toEqual([
          `order-1:${placed}`,
          'order-1:Confirmed',
          'rider-1:RiderMoved',
          `rider-1:${placed}`,
        ]);
        expect(await read({ eventTypes: [placed] })).toEqual([`order-1:${placed}`, `rider-1:${placed}`]);
        expect(await read({ streamPrefixes: [s('rider-')], eventTypes: [placed, 'KeyClaimed'] })).toEqual([
          `rider-1:${placed}`,
        ]);
      });
      it('filters readAll by a partition of stream keys: the parts split the log, and a key is in one part whatever its prefix', async () => {
        const base = await store.headPosition();
        const prefixes = [s('order-'), s('rider-')];
        const keys = Array.from({ length: 16 }, (_, i) => `k${i}`);
        for (const k of keys) {
          await store.append(s(`order-${k}`), [ev('Placed'), ev('Accepted')], { expectedRevision: 'no_stream' });
          await store.append(s(`rider-${k}`), [ev('Moved')], { expectedRevision: 'no_stream' });
        }
        await store.append(s('idem-k0'), [ev('KeyClaimed')], { expectedRevision: 'no_stream' });
        const whole = (await store.readAll({ after: base, filter: { streamPrefixes: prefixes } })).map(
          (e) => `${e.streamId}:${e.type}`,
        );
        const partOf = (entry: string): number => streamPart(entry.slice(0, entry.indexOf(':')), prefixes, 4);
        // This connection may answer from the events it appended; another reads them from the backend.
        for (const reader of [store, await fixture.open()]) {
          const read = async (parts: number[], maxCount?: number): Promise<string[]> =>
            (
              await reader.readAll({
                after: base,
                maxCount,
                filter: { streamPrefixes: prefixes, partition: { count: 4, parts } },
              })
            ).map((e) => `${e.streamId}:${e.type}`);
          const byPart = await Promise.all([0, 1, 2, 3].map((part) => read([part])));
          byPart.forEach((events, part) => expect(events).toEqual(whole.filter((e) => partOf(e) === part)));
          expect(byPart.flat()).toHaveLength(whole.length);
          expect(byPart.filter((events) => events.length > 0).length).toBeGreaterThan(1);
          for (const k of keys) {
            expect(
              byPart.filter(
                (events) => events.includes(`${s(`order-${k}`)}:Placed`) && events.includes(`${s(`rider-${k}`)}:Moved`),
              ),
            ).toHaveLength(1);
          }
          expect(await read([1, 3])).toEqual(whole.filter((e) => [1, 3].includes(partOf(e))));
          expect(await read([0, 1, 2], 5)).toEqual(whole.filter((e) => partOf(e) !== 3).slice(0, 5));
        }
      });
    });

    describe('subscribeToAll', () => {
      it('catches up, reports it, then delivers live appends', async () => {
        const base = await store.headPosition();
        await store.append(s('order-1'), [ev('A'), ev('B')], { expectedRevision: 'no_stream' });
        const log: string[] = [];
        const caughtUp = deferred();
        const gotC = deferred();
        const sub = store.subscribeToAll({
          after: base,
          filter: { streamPrefixes: [`${ns}-`] },
          onEvent: (e) => {
            log.push(e.type);
            if (e.type === 'C') gotC.resolve();
          },
          onCaughtUp: () => {
            log.push('caught-up');
            caughtUp.resolve();
          },
        });
        await caughtUp.promise;
        await store.append(s('order-1'), [ev('C')], { expectedRevision: 1 });
        await gotC.promise;
        await sub.stop();
        expect(log).toEqual(['A', 'B', 'caught-up', 'C']);
      });

      it('starts strictly after a given position and delivers one event at a time', async () => {
        await store.append(s('order-1'), [ev('E0'), ev('E1'), ev('E2'), ev('E3')], { expectedRevision: 'no_stream' });
        const [, e1] = await store.readStream(s('order-1'));
        const seen: string[] = [];
        let inFlight = 0;
        let maxInFlight = 0;
        const done = deferred();
        const sub = store.subscribeToAll({
          after: e1!.position,
          filter: { streamPrefixes: [`${ns}-`] },
          onEvent: async (e) => {
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
            seen.push(e.type);
            inFlight--;
            if (e.type === 'E3') done.resolve();
          },
        });
        await done.promise;
        await sub.stop();
        expect(seen).toEqual(['E2', 'E3']);
        expect(maxInFlight).toBe(1);
      });

      it('catches up over many pages without skipping or repeating an event', async () => {
        const base = await store.headPosition();
        const total = 1200;
        for (let batch = 0; batch < total / 100; batch++) {
          const events = Array.from({ length: 100 }, (_, i) => ev('Tick', { n: batch * 100 + i }));
          await store.append(s('rider-1'), events, { expectedRevision: batch === 0 ? 'no_stream' : batch * 100 - 1 });
        }
        const seen: unknown[] = [];
        const caughtUp = deferred();
        const sub = store.subscribeToAll({
          after: base,
          filter: { streamPrefixes: [`${ns}-`] },
          onEvent: (e) => void seen.push(e.data.n),
          onCaughtUp: () => caughtUp.resolve(),
        });
        await caughtUp.promise;
        await sub.stop();
        expect(seen).toEqual([...Array(total).keys()]);

        const acked: unknown[] = [];
        const all = deferred();
        const group = store.consumerGroup({ group: `${ns}-pages`, filter: { streamPrefixes: [`${ns}-`] } });
        await group.start(async (e) => {
          acked.push(e.data.n);
          if (acked.length === total) all.resolve();
          return 'ack';
        });
        await all.promise;
        await group.stop();
        expect(acked).toEqual([...Array(total).keys()]);
      });

      it('stops and reports when onEvent throws', async () => {
        const base = await store.headPosition();
        await store.append(s('order-1'), [ev('E0'), ev('E1')], { expectedRevision: 'no_stream' });
        const failed = deferred<unknown>();
        const seen: string[] = [];
        const sub = store.subscribeToAll({
          after: base,
          filter: { streamPrefixes: [`${ns}-`] },
          onEvent: (e) => {
            seen.push(e.type);
            throw new Error('projection failed');
          },
          onError: (err) => failed.resolve(err),
        });
        expect(await failed.promise).toHaveProperty('message', 'projection failed');
        await sub.stop();
        expect(seen).toEqual(['E0']);
      });
    });

    describe('head position and bounded streams', () => {
      it('headPosition is at least the position of the latest append', async () => {
        if (fixture.isolated) expect(await store.headPosition()).toBe(0n);
        const r = await store.append(s('a'), [ev('E0'), ev('E1')], { expectedRevision: 'no_stream' });
        const head = await store.headPosition();
        expect(head).toBeGreaterThanOrEqual(r.position);
        if (fixture.isolated) expect(head).toBe(r.position);
      });

      it("readYourWritesPosition reaches another client's acknowledged append, also behind this one's 'ordered' append, and its readers then get there", async () => {
        const other = await fixture.open();
        const mine = await store.append(s('claim'), [ev('KeyClaimed')], {
          expectedRevision: 'no_stream',
          durability: 'ordered',
        });
        const theirs = await other.append(s('order'), [ev('OrderPlaced')], { expectedRevision: 'no_stream' });
        const target = await store.readYourWritesPosition();
        expect(target).toBeGreaterThanOrEqual(theirs.position);
        await eventually(async () =>
          (await store.readAll({ after: mine.position, maxCount: 100 })).some((e) => e.position === theirs.position),
        );
      });

      it('setStreamMaxCount keeps the newest events and revisions keep counting', async () => {
        await store.append(
          s('rider-1'),
          ['P0', 'P1', 'P2', 'P3', 'P4'].map((t) => ev(t)),
          { expectedRevision: 'no_stream' },
        );
        await store.setStreamMaxCount(s('rider-1'), 2);
        expect(types(await store.readStream(s('rider-1')))).toEqual(['P3', 'P4']);
        const r = await store.append(s('rider-1'), [ev('P5')], { expectedRevision: 4 });
        expect(r.nextExpectedRevision).toBe(5);
        const kept = await store.readStream(s('rider-1'));
        expect(kept.map((e) => [e.type, e.revision])).toEqual([
          ['P4', 4],
          ['P5', 5],
        ]);
        await store.setStreamMaxCount(s('rider-2'), 1); // before the stream exists
        await store.append(s('rider-2'), [ev('Q0'), ev('Q1')], { expectedRevision: 'no_stream' });
        expect(types(await store.readStream(s('rider-2')))).toEqual(['Q1']);
      });

      it('never gives a position twice, also after trimming a bounded stream', async () => {
        await store.setStreamMaxCount(s('rider-3'), 1);
        const positions: bigint[] = [];
        for (const t of ['R0', 'R1', 'R2']) {
          positions.push((await store.append(s('rider-3'), [ev(t)], { expectedRevision: 'any' })).position);
          // Each append trims the one before: the log's newest event is the only one left.
          expect(types(await store.readStream(s('rider-3')))).toEqual([t]);
        }
        positions.push((await store.append(s('other-3'), [ev('O0')], { expectedRevision: 'no_stream' })).position);
        for (let i = 1; i < positions.length; i++) expect(positions[i]!).toBeGreaterThan(positions[i - 1]!);
      });
    });

    describe('listStreams', () => {
      /** Appends `events` events to each stream, in the order given (not the order of their names). */
      async function streams(spec: Record<string, number>): Promise<void> {
        for (const [name, events] of Object.entries(spec))
          await store.append(
            s(name),
            Array.from({ length: events }, (_, i) => ev(`E${i}`)),
            { expectedRevision: 'no_stream' },
          );
      }

      it('pages through every stream with a small limit: each name once, in order, with its last revision', async () => {
        await streams({
          'order-c': 1,
          'order-a': 3,
          'rider-b': 2,
          'order-b': 1,
          'order-b-2': 2,
          'claim-z': 1,
          'x-1': 4,
        });
        await store.setStreamMaxCount(s('rider-later'), 5); // set before the stream has an event: not a stream yet
        const expected = [
          ['claim-z', 0],
          ['order-a', 2],
          ['order-b', 0],
          ['order-b-2', 1],
          ['order-c', 0],
          ['rider-b', 1],
          ['x-1', 3],
        ].map(([name, lastRevision]) => ({ streamId: s(name as string), lastRevision }));
        expect(await store.listStreams({ prefix: s('') })).toEqual(expected);
        const pages: string[][] = [];
        let after: string | undefined;
        for (;;) {
          const page = await store.listStreams({ prefix: s(''), limit: 2, ...(after === undefined ? {} : { after }) });
          pages.push(page.map((x) => x.streamId));
          expect(page).toEqual(expected.slice((pages.length - 1) * 2, pages.length * 2));
          if (page.length < 2) break;
          after = page.at(-1)!.streamId;
          expect(pages.length).toBeLessThan(10);
        }
        expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
        expect(pages.flat()).toEqual(expected.map((x) => x.streamId));
      });

      it('takes after and prefix together: names after the cursor that also start with the prefix', async () => {
        await streams({ 'b-2': 1, 'a-2': 1, 'b-1': 2, 'a-1': 1, 'b-10': 1, c: 1 });
        const names = async (options: { prefix: string; after: string; limit?: number }) =>
          (await store.listStreams({ ...options, prefix: s(options.prefix), after: s(options.after) })).map(
            (x) => x.streamId,
          );
        // A cursor before the prefix's names: all of them.
        expect(await names({ prefix: 'b-', after: 'a-2' })).toEqual([s('b-1'), s('b-10'), s('b-2')]);
        // A cursor among them: strictly after it, whether it names a stream or falls between two.
        expect(await names({ prefix: 'b-', after: 'b-1' })).toEqual([s('b-10'), s('b-2')]);
        expect(await names({ prefix: 'b-', after: 'b-11' })).toEqual([s('b-2')]);
        expect(await names({ prefix: 'b-', after: 'b-1', limit: 1 })).toEqual([s('b-10')]);
        // A cursor past the prefix's names: none, though other streams follow.
        expect(await names({ prefix: 'a-', after: 'a-9' })).toEqual([]);
        expect(await names({ prefix: '', after: 'b-2' })).toEqual([s('c')]);
      });

      it('after the last name there is nothing: []', async () => {
        await streams({ 'order-1': 1, 'order-2': 1 });
        expect(await store.listStreams({ prefix: s(''), after: s('order-2') })).toEqual([]);
        expect(await store.listStreams({ prefix: s(''), after: s('zzz'), limit: 5 })).toEqual([]);
        if (fixture.isolated) {
          const last = (await store.listStreams()).at(-1)!.streamId;
          expect(last).toBe(s('order-2'));
          expect(await store.listStreams({ after: last })).toEqual([]);
          expect(await store.listStreams({ after: last, limit: 1 })).toEqual([]);
        }
      });
    });

    describe('consumer groups', () => {
      it('acks, retries (also on throw) and parks, in order', async () => {
        await store.append(
          s('order-1'),
          ['Ack', 'ThrowOnce', 'RetryOnce', 'Park', 'AlwaysRetry', 'Last'].map((t) => ev(t)),
          { expectedRevision: 'no_stream' },
        );
        const errors: unknown[] = [];
        const group = store.consumerGroup({
          group: `${ns}-dispatcher`,
          filter: { streamPrefixes: [`${ns}-`] },
          maxRetries: 2,
          onError: (err) => errors.push(err),
        });
        const deliveries: string[] = [];
        const last = deferred();
        await group.start(async (e, { retryCount }) => {
          deliveries.push(`${e.type}#${retryCount}`);
          switch (e.type) {
            case 'ThrowOnce':
              if (retryCount === 0) throw new Error('endpoint down');
              return 'ack';
            case 'RetryOnce':
              return retryCount === 0 ? 'retry' : 'ack';
            case 'Park':
              return 'park';
            case 'AlwaysRetry':
              return 'retry';
            case 'Last':
              last.resolve();
              return 'ack';
            default:
              return 'ack';
          }
        });
        await last.promise;
        await eventually(async () => (await group.parked()).length === 2);
        await group.stop();
        expect(deliveries).toEqual([
          'Ack#0',
          'ThrowOnce#0',
          'ThrowOnce#1',
          'RetryOnce#0',
          'RetryOnce#1',
          'Park#0',
          'AlwaysRetry#0',
          'AlwaysRetry#1',
          'AlwaysRetry#2',
          'Last#0',
        ]);
        expect(types(await group.parked())).toEqual(['Park', 'AlwaysRetry']);
        expect(errors).toHaveLength(1);
        expect(errors[0]).toHaveProperty('message', 'endpoint down');
      });

      it('with concurrency, handlers overlap, and the position never passes an event that is not settled', async () => {
        const total = 12;
        await store.append(
          s('order-1'),
          Array.from({ length: total }, (_, i) => ev(`E${i}`)),
          { expectedRevision: 'no_stream' },
        );
        const options = {
          group: `${ns}-parallel`,
          filter: { streamPrefixes: [`${ns}-`] },
          concurrency: 4,
          maxRetries: 1000,
        };
        let running = 0;
        let most = 0;
        const acked = new Set<string>();
        let e8Tries = 0;
        const stuck = deferred();
        const group = store.consumerGroup(options);
        await group.start(async (e) => {
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setTimeout(r, 5));
          running--;
          // E8 keeps failing while the later events of its window (E9 to E11) succeed.
          if (e.type === 'E8') {
            if (++e8Tries === 3) stuck.resolve();
            return 'retry';
          }
          acked.add(e.type);
          return 'ack';
        });
        await stuck.promise;
        await eventually(async () => ['E9', 'E10', 'E11'].every((t) => acked.has(t)));
        await group.stop();
        expect(most).toBeGreaterThan(1);
        expect(most).toBeLessThanOrEqual(4);
        expect(acked.has('E8')).toBe(false);
        // A new consumer still gets E8 (and maybe others again: at least once).
        const second: string[] = [];
        const gotE8 = deferred();
        const again = store.consumerGroup(options);
        await again.start(async (e) => {
          second.push(e.type);
          if (e.type === 'E8') gotE8.resolve();
          return 'ack';
        });
        await gotE8.promise;
        await again.stop();
        expect(second).toContain('E8');
      });

      // EventStoreDB keeps a persistent subscription's retry counts in the server's memory, and
      // what a reconnecting consumer is sent again depends on the server's timing: not a contract.
      it.skipIf(!traits.exactCheckpoints)(
        'keeps retry counts across a close and reopen (skipped on EventStoreDB: the server keeps them)',
        async () => {
          const options = { group: `${ns}-retries`, filter: { streamPrefixes: [`${ns}-`] }, maxRetries: 10 };
          await store.append(s('order-1'), [ev('Flaky'), ev('After')], { expectedRevision: 'no_stream' });
          const first: string[] = [];
          const stopping = deferred();
          const group = store.consumerGroup(options);
          await group.start(async (e, { retryCount }) => {
            first.push(`${e.type}#${retryCount}`);
            // Stopped from inside its second try: that retry is recorded, and no third try begins.
            if (retryCount === 1) void group.stop().then(stopping.resolve);
            return 'retry';
          });
          await stopping.promise;
          await store.close();

          const reopened = await fixture.open();
          const second: string[] = [];
          const gotAfter = deferred();
          const again = reopened.consumerGroup(options);
          await again.start(async (e, { retryCount }) => {
            second.push(`${e.type}#${retryCount}`);
            if (e.type === 'After') gotAfter.resolve();
            return 'ack';
          });
          await gotAfter.promise;
          await again.stop();
          expect(first).toEqual(['Flaky#0', 'Flaky#1']);
          expect(second).toEqual(['Flaky#2', 'After#0']);
        },
      );

      it('reports its stored position: 0 before any event, then at least the last settled one', async () => {
        const group = store.consumerGroup({ group: `${ns}-position`, filter: { streamPrefixes: [`${ns}-`] } });
        expect(await group.position()).toBe(0n);
        const appended = await store.append(s('order-1'), [ev('E1'), ev('E2')], { expectedRevision: 'no_stream' });
        const handled = deferred();
        await group.start(async (e) => {
          if (e.type === 'E2') handled.resolve();
          return 'ack';
        });
        await handled.promise;
        await eventually(async () => (await group.position()) >= appended.position); // EventStoreDB checkpoints about a second later
        await group.stop();
      });

      it('resumes from its durable position after close and reopen', async () => {
        const options = { group: `${ns}-webhooks`, filter: { streamPrefixes: [`${ns}-`] } };
        await store.append(s('order-1'), [ev('E1'), ev('E2')], { expectedRevision: 'no_stream' });
        const first: string[] = [];
        const gotTwo = deferred();
        const group = store.consumerGroup(options);
        await group.start(async (e) => {
          first.push(e.type);
          if (first.length === 2) gotTwo.resolve();
          return 'ack';
        });
        await gotTwo.promise;
        await group.stop();
        await store.close();

        const writer = await fixture.open();
        await writer.append(s('order-1'), [ev('E3')], { expectedRevision: 1 });
        const reopened = await fixture.open();
        const second: string[] = [];
        const gotE3 = deferred();
        const again = reopened.consumerGroup(options);
        await again.start(async (e) => {
          second.push(e.type);
          if (e.type === 'E3') gotE3.resolve();
          return 'ack';
        });
        await gotE3.promise;
        await again.stop();
        expect(first).toEqual(['E1', 'E2']);
        if (traits.exactCheckpoints) expect(second).toEqual(['E3']);
        else expect(['E1', 'E2', 'E3']).toEqual(expect.arrayContaining(second)); // at-least-once
        expect(second.at(-1)).toBe('E3');
      });
    });
  });
}

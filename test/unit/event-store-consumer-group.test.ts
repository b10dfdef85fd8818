import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { StorageUnavailableError, type AppendResult } from '../../src/ports/event-store.js';
import { ev, eventually } from '../contract/event-store.contract.js';
import { manualDeferral } from '../support/manual-deferral.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'consumer-group-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite consumer group positions', () => {
  it('writes the settled position once per delay, not once per event, and at stop', async () => {
    const file = join(dir, 'events.db');
    const writes = manualDeferral(100);
    const store = new SqliteEventStore({ file, positionWrites: writes.deferral });
    // Another connection to the same file sees only what was written.
    const other = new SqliteEventStore({ file });
    try {
      const options = { group: 'g', filter: { streamPrefixes: ['s-'] } };
      const written = () => other.consumerGroup(options).position();
      const group = store.consumerGroup(options);
      const seen: string[] = [];
      await group.start(async (e) => {
        seen.push(e.type);
        return 'ack';
      });

      let last = 0n;
      for (const type of ['A', 'B', 'C'])
        last = (await store.append('s-1', [ev(type)], { expectedRevision: 'any' })).position;
      await eventually(async () => (await group.position()) === last);

      // Given three events settled one page at a time, when the delay has not passed,
      expect(seen).toEqual(['A', 'B', 'C']);
      // then one write waits for it, and none has been made yet;
      expect(writes.asked).toBe(1);
      expect(await written()).toBe(0n);
      // when it passes, the newest settled position is written.
      writes.due();
      expect(await written()).toBe(last);

      // Given more settled events, when the group stops, their position is written at once.
      last = (await store.append('s-1', [ev('D')], { expectedRevision: 'any' })).position;
      await eventually(async () => (await group.position()) === last);
      expect(await written()).toBeLessThan(last);
      await group.stop();
      expect(await written()).toBe(last);

      // A restarted group goes on after it: nothing is delivered twice.
      const again = store.consumerGroup(options);
      const redelivered: string[] = [];
      await again.start(async (e) => {
        redelivered.push(e.type);
        return 'ack';
      });
      last = (await store.append('s-1', [ev('E')], { expectedRevision: 'any' })).position;
      await eventually(async () => (await again.position()) === last);
      expect(redelivered).toEqual(['E']);
    } finally {
      await store.close();
      await other.close();
    }
  });
});

describe('SQLite consumer group wake-ups', () => {
  it('wakes a waiting group once, the delay after an append, for every event appended meanwhile', async () => {
    const wakes = manualDeferral(5);
    // No poll within the test: only an append wakes a reader.
    const store = new SqliteEventStore({
      file: join(dir, 'events.db'),
      consumerWakes: wakes.deferral,
      pollIntervalMs: 60_000,
    });
    try {
      const group = store.consumerGroup({ group: 'g', filter: { streamPrefixes: ['s-'] } });
      const delivered: string[] = [];
      await group.start(async (e) => {
        delivered.push(e.type);
        return 'ack';
      });
      const followed: string[] = [];
      const subscription = store.subscribeToAll({
        onEvent: (e) => {
          followed.push(e.type);
        },
      });

      // Given a waiting group, when three appends commit one after another,
      for (const type of ['A', 'B', 'C']) await store.append('s-1', [ev(type)], { expectedRevision: 'any' });
      // then a subscription reads them at once (read-your-writes waits on it),
      await eventually(() => followed.length === 3);
      // while the group has one wake-up scheduled for all three and has read none of them;
      expect(wakes.asked).toBe(1);
      expect(delivered).toEqual([]);
      // when the delay passes, it reads them all.
      wakes.due();
      await eventually(() => delivered.length === 3);
      expect(delivered).toEqual(['A', 'B', 'C']);

      // Given a group waiting for its delay, when it stops, then it does not wait for the delay.
      await store.append('s-1', [ev('D')], { expectedRevision: 'any' });
      expect(wakes.waiting).toBe(1);
      await group.stop();
      expect(wakes.waiting).toBe(0);
      await subscription.stop();
    } finally {
      await store.close();
    }
  });
});

describe('SQLite consumer group positions, several in flight', () => {
  it('writes a window only once all of it is settled, a parked event at once', async () => {
    const file = join(dir, 'events.db');
    const writes = manualDeferral(100);
    const store = new SqliteEventStore({ file, positionWrites: writes.deferral });
    const other = new SqliteEventStore({ file });
    const release: Array<() => void> = [];
    try {
      const options = { group: 'w', filter: { streamPrefixes: ['w-'] }, concurrency: 4, maxRetries: 0 };
      const written = () => other.consumerGroup(options).position();
      const group = store.consumerGroup(options);
      const handled: string[] = [];
      await group.start(async (e) => {
        // B waits for the test; C is parked (no retries).
        if (e.type === 'B') await new Promise<void>((r) => release.push(r));
        handled.push(e.type);
        return e.type === 'C' ? 'park' : 'ack';
      });
      // One turn, one commit: the four are one page, one window.
      const positions = (
        await Promise.all(
          ['A', 'B', 'C', 'D'].map((type) => store.append(`w-${type}`, [ev(type)], { expectedRevision: 'no_stream' })),
        )
      ).map((r) => r.position);
      await eventually(() => handled.length === 3 && release.length === 1);

      // Given a window with B still in its handler, then nothing of it is settled, in memory or on disk.
      expect(await group.position()).toBe(0n);
      writes.due();
      expect(await written()).toBe(0n);
      // The park is recorded at once, without the group's position.
      expect((await other.consumerGroup(options).parked()).map((e) => e.type)).toEqual(['C']);

      // When B settles, the whole window is settled, and written when the delay passes.
      release[0]!();
      await eventually(async () => (await group.position()) === positions[3]);
      writes.due();
      expect(await written()).toBe(positions[3]);
      await group.stop();
    } finally {
      for (const r of release) r(); // a failed assertion must not leave B's handler holding close()
      await store.close();
      await other.close();
    }
  });
});

describe('SQLite consumer groups while the store cannot write', () => {
  const cannotWrite = () => new StorageUnavailableError('event store', 'io', { cause: new Error('EIO') });

  /**
   * A full disk under the group's own writes, made real on its connection alone: a temporary
   * trigger on `table` writes into a temporary table capped at two pages, so SQLite fails the
   * write with SQLITE_FULL; the returned function makes room again.
   */
  function fillUnder(store: SqliteEventStore, table: string, on: 'INSERT' | 'UPDATE'): () => void {
    // The test's hook into the real adapter: the connection the store's consumer groups write with.
    const db = (store as unknown as { bookkeepingDb: Database.Database }).bookkeepingDb;
    db.exec('CREATE TEMP TABLE IF NOT EXISTS ballast (x BLOB)');
    db.pragma('temp.max_page_count = 2');
    db.exec(
      `CREATE TEMP TRIGGER full_disk BEFORE ${on} ON main.${table} BEGIN INSERT INTO temp.ballast VALUES (zeroblob(100000)); END`,
    );
    return () => db.exec('DROP TRIGGER temp.full_disk');
  }
  const full = { name: 'StorageUnavailableError', reason: 'full' };

  /**
   * A group that parks events of type P and acks the rest, its position writes run by the test
   * (`writes`), with one event settled while there is no room for the group's position.
   */
  async function settledWithNoRoomForPosition() {
    const writes = manualDeferral(100);
    const file = join(dir, 'events.db');
    const store = new SqliteEventStore({ file, positionWrites: writes.deferral });
    const errors: unknown[] = [];
    const options = {
      group: 'g',
      filter: { streamPrefixes: ['s-'] },
      maxRetries: 0,
      onError: (e: unknown) => errors.push(e),
    };
    const group = store.consumerGroup(options);
    await group.start(async (e) => (e.type === 'P' ? 'park' : 'ack'));
    const makeRoom = fillUnder(store, 'consumer_groups', 'UPDATE');
    const last = (await store.append('s-1', [ev('A')], { expectedRevision: 'no_stream' })).position;
    await eventually(async () => (await group.position()) === last);
    /** The position on disk, as another process reads it. */
    const written = async () => {
      const other = new SqliteEventStore({ file });
      try {
        return await other.consumerGroup(options).position();
      } finally {
        await other.close();
      }
    };
    return { store, group, writes, errors, makeRoom, last, written };
  }

  it("when the group's own write of a retry count meets a full disk, then it reports the store unavailable and counts the retry once there is room", async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    try {
      const errors: unknown[] = [];
      const group = store.consumerGroup({
        group: 'g',
        filter: { streamPrefixes: ['s-'] },
        onError: (e) => errors.push(e),
      });
      const makeRoom = fillUnder(store, 'consumer_group_retries', 'INSERT');
      const seen: string[] = [];
      await group.start(async (e, { retryCount }) => {
        seen.push(`${e.type}#${retryCount}`);
        return retryCount < 1 ? 'retry' : 'ack';
      });
      const last = (await store.append('s-1', [ev('A')], { expectedRevision: 'no_stream' })).position;
      await eventually(() => errors.length >= 2);

      // Given no room for the retry count, then the event comes again with none counted,
      expect(new Set(seen)).toEqual(new Set(['A#0']));
      // and the group reports the store as the API does, not SQLite's error.
      expect(errors.slice(0, 2)).toEqual([expect.objectContaining(full), expect.objectContaining(full)]);

      // When there is room, the retry is counted and the event settled.
      makeRoom();
      await eventually(async () => (await group.position()) === last);
      expect(seen.at(-1)).toBe('A#1');
      expect(await group.parked()).toEqual([]);
      await group.stop();
    } finally {
      await store.close();
    }
  });

  it('when the position write meets a full disk, then it reports the store unavailable and tries again later each time', async () => {
    const { store, group, writes, errors, makeRoom, last, written } = await settledWithNoRoomForPosition();
    try {
      // Given no room for the group's position, when its write is due, then it fails, is
      // reported as the store being unavailable, and is tried again after the delay, then after
      // twice as long each time.
      writes.due();
      writes.due();
      writes.due();
      expect(errors).toEqual([full, full, full].map((f) => expect.objectContaining(f)));
      expect(writes.delays).toEqual([100, 100, 200, 400]);

      // When there is room, the next try writes it, and the next settle waits the usual delay.
      makeRoom();
      writes.due();
      expect(await written()).toBe(last);
      const next = (await store.append('s-1', [ev('B')], { expectedRevision: 'any' })).position;
      await eventually(async () => (await group.position()) === next);
      expect(writes.delays).toEqual([100, 100, 200, 400, 100]);
      expect(errors).toHaveLength(3);
      await group.stop();
    } finally {
      await store.close();
    }
  });

  for (const restartConcurrency of [4, 1]) {
    it(`when a window fails on the store while an event of it is already parked, then the parked event is not delivered again, in this run or the next (restarted at concurrency ${restartConcurrency})`, async () => {
      const file = join(dir, 'events.db');
      const options = {
        group: 'w',
        filter: { streamPrefixes: ['w-'] },
        concurrency: 4,
        maxRetries: 0,
        onError: () => undefined,
      };
      let b: AppendResult;
      const store = new SqliteEventStore({ file });
      try {
        const group = store.consumerGroup(options);
        const seen: string[] = [];
        let parkedA = false;
        await group.start(async (e) => {
          seen.push(e.type);
          if (e.type === 'A') {
            // Parked at its first delivery; acked, if it ever came again.
            const outcome = parkedA ? 'ack' : 'park';
            parkedA = true;
            return outcome;
          }
          // B fails on the store once A is settled: the window fails with A already parked.
          await eventually(async () => (await group.parked()).length === 1);
          throw cannotWrite();
        });
        // One turn, one commit: one page, one window.
        [, b] = (await Promise.all(
          ['A', 'B'].map((type) => store.append(`w-${type}`, [ev(type)], { expectedRevision: 'no_stream' })),
        )) as [AppendResult, AppendResult];
        // Given B failing on the store each time, then the window comes again, without A.
        await eventually(() => seen.length >= 3);
        await group.stop();
        expect(seen.slice(0, 3)).toEqual(['A', 'B', 'B']);
        expect(seen.filter((type) => type === 'A')).toHaveLength(1);
        expect(await group.position()).toBeLessThan(b.position);
      } finally {
        await store.close();
      }

      // When a new process starts the group, then the window comes again, still without A.
      const next = new SqliteEventStore({ file });
      try {
        const group = next.consumerGroup({ ...options, concurrency: restartConcurrency });
        const seen: string[] = [];
        await group.start(async (e) => {
          seen.push(e.type);
          return 'ack';
        });
        await eventually(async () => (await group.position()) === b.position);
        expect(seen).toEqual(['B']);
        expect((await group.parked()).map((e) => e.type)).toEqual(['A']);
        await group.stop();
      } finally {
        await next.close();
      }
    });
  }

  const nextTurn = {
    delayMs: 0,
    schedule(run: () => void) {
      const immediate = setImmediate(run);
      return () => clearImmediate(immediate);
    },
  };

  /** A group whose handler fails on the store at every delivery of its one event; `deliveries()` counts them. */
  async function alwaysFailing(pollIntervalMs: number) {
    const store = new SqliteEventStore({
      file: join(dir, 'events.db'),
      pollIntervalMs,
      synchronous: 'NORMAL',
      // Woken on the next turn (not a timer): the waits measured here are the failures' alone.
      consumerWakes: nextTurn,
    });
    const group = store.consumerGroup({ group: 'g', filter: { streamPrefixes: ['s-'] }, onError: () => undefined });
    let deliveries = 0;
    await group.start(async () => {
      deliveries++;
      throw cannotWrite();
    });
    await store.append('s-1', [ev('A')], { expectedRevision: 'no_stream' });
    return { store, group, deliveries: () => deliveries };
  }

  it('when a page fails, then the group waits before reading it again, however much is appended meanwhile', async () => {
    // A poll interval past the longest wait: the first wait after a failure is then 5 s.
    const { store, group, deliveries } = await alwaysFailing(60_000);
    try {
      await eventually(() => deliveries() === 1);
      // Given the page failed, when other streams are appended (each wakes the group's loop),
      for (let i = 0; i < 20; i++) await store.append(`other-${i}`, [ev('X')], { expectedRevision: 'no_stream' });
      // then the event is not delivered again meanwhile; stop() ends the wait.
      expect(deliveries()).toBe(1);
      await group.stop();
    } finally {
      await store.close();
    }
  });

  it('when a page keeps failing, then the wait before each try doubles from the poll interval up to 5 s', async () => {
    // Fake timeouts and clock only: the store's commits and wake-ups run on real immediates.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { store, group, deliveries } = await alwaysFailing(25);
      try {
        while (deliveries() === 0) await new Promise((resolve) => setImmediate(resolve));
        // Given the first try failed, then each next try comes exactly when its wait has passed.
        for (const wait of [25, 50, 100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000]) {
          const before = deliveries();
          await vi.advanceTimersByTimeAsync(wait - 1);
          expect(deliveries()).toBe(before);
          await vi.advanceTimersByTimeAsync(1);
          expect(deliveries()).toBe(before + 1);
        }
        await group.stop();
      } finally {
        await store.close();
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('when a page fails with no poll interval, then the group still waits between tries and stops', async () => {
    const { store, group, deliveries } = await alwaysFailing(0);
    try {
      // Given a page failing each time, then timers still run between tries (eventually polls on
      // one), and stop() ends the loop.
      await eventually(() => deliveries() >= 3);
      await group.stop();
    } finally {
      await store.close();
    }
  });

  it('when the write at stop meets a full disk, then the next start writes the position', async () => {
    const { store, group, writes, errors, makeRoom, last, written } = await settledWithNoRoomForPosition();
    try {
      await group.stop();
      expect(errors).toEqual([expect.objectContaining(full)]);

      // Given a position the stop could not write, when the group starts again with room, then it
      // is written after the usual delay, with no new event.
      makeRoom();
      await group.start(async () => 'ack');
      expect(writes.waiting).toBe(1);
      expect(writes.delays.at(-1)).toBe(100);
      writes.due();
      expect(await written()).toBe(last);
      await group.stop();
    } finally {
      await store.close();
    }
  });

  it('when a settle writes while the position write is backing off, then the next write waits the usual delay', async () => {
    const { store, group, writes, errors, makeRoom } = await settledWithNoRoomForPosition();
    try {
      writes.due();
      writes.due();
      expect(writes.delays).toEqual([100, 100, 200]);

      // Given the write backing off (200 ms), when there is room and a park is written with the
      // group's position, then the backed-off write is dropped, and the next waits the usual delay.
      makeRoom();
      const p = (await store.append('s-1', [ev('P')], { expectedRevision: 'any' })).position;
      await eventually(async () => (await group.parked()).length === 1);
      await eventually(async () => (await group.position()) === p);
      expect(writes.waiting).toBe(1);
      expect(writes.delays.at(-1)).toBe(100);
      expect(errors).toHaveLength(2);
      await group.stop();
    } finally {
      await store.close();
    }
  });

  it('when onError throws, then the group keeps delivering', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    try {
      const group = store.consumerGroup({
        group: 'g',
        filter: { streamPrefixes: ['s-'] },
        onError: () => {
          throw new Error('listener failed');
        },
      });
      let failures = 2;
      const seen: string[] = [];
      await group.start(async (e) => {
        if (failures-- > 0) throw cannotWrite();
        seen.push(e.type);
        return 'ack';
      });
      const last = (await store.append('s-1', [ev('A')], { expectedRevision: 'no_stream' })).position;
      await eventually(async () => (await group.position()) === last);
      expect(seen).toEqual(['A']);
      expect(quiet).toHaveBeenCalledWith('consumer group g: onError threw', expect.any(Error));
      await group.stop();
    } finally {
      await store.close();
      quiet.mockRestore();
    }
  });

  for (const concurrency of [1, 4]) {
    it(`when the handler fails because the store cannot write, then no retry is counted and the event comes again, not parked (concurrency ${concurrency})`, async () => {
      const store = new SqliteEventStore({ file: join(dir, 'events.db') });
      try {
        const errors: unknown[] = [];
        const group = store.consumerGroup({
          group: 'g',
          filter: { streamPrefixes: ['s-'] },
          concurrency,
          maxRetries: 1,
          onError: (err) => errors.push(err),
        });
        let failures = 3;
        const seen: string[] = [];
        await group.start(async (e, { retryCount }) => {
          seen.push(`${e.type}#${retryCount}`);
          if (e.type === 'A' && failures-- > 0) throw cannotWrite();
          return 'ack';
        });
        const last = (await store.append('s-1', [ev('A'), ev('B')], { expectedRevision: 'no_stream' })).position;
        await eventually(async () => (await group.position()) === last);

        expect(seen.filter((s) => s.startsWith('A'))).toEqual(['A#0', 'A#0', 'A#0', 'A#0']);
        expect(seen).toContain('B#0');
        expect(await group.parked()).toEqual([]);
        expect(errors).toHaveLength(3);
        expect(errors.every((e) => e instanceof StorageUnavailableError)).toBe(true);
        await group.stop();
      } finally {
        await store.close();
      }
    });
  }

  it('when the group stops while a handler fails so, then the event is left for the next start and nothing is reported', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    try {
      const errors: unknown[] = [];
      const options = { group: 'g', filter: { streamPrefixes: ['s-'] }, onError: (err: unknown) => errors.push(err) };
      const group = store.consumerGroup(options);
      let release: (() => void) | undefined;
      await group.start(async () => {
        await new Promise<void>((resolve) => (release = resolve));
        throw cannotWrite();
      });
      await store.append('s-1', [ev('A')], { expectedRevision: 'no_stream' });
      await eventually(() => release !== undefined);
      const stopping = group.stop();
      release!();
      await stopping;
      expect(errors).toEqual([]);
      expect(await group.position()).toBe(0n);
      expect(await group.parked()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

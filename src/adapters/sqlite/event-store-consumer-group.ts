import type Database from 'better-sqlite3';
import type { Clock } from '../../shared/clock.js';
import {
  StorageUnavailableError,
  type ConsumerGroup,
  type ConsumerGroupOptions,
  type ConsumerHandler,
  type ConsumerOutcome,
  type RecordedEvent,
} from '../../ports/event-store.js';
import { EVENT_COLUMNS, toRecordedEvent, type EventRow, type PageReader } from './event-store-reader.js';
import type { Wakeup } from './event-store-wakeup.js';
import { scheduleTimer, STORE, type Deferral } from './event-store-group-commit.js';
import { storageError } from './storage-errors.js';

const PAGE_SIZE = 128;
export const DEFAULT_MAX_RETRIES = 10;
/**
 * How long a settled position waits in memory before it is written. One write per settled event
 * (per page, per window) was 4 to 5 commits of the bookkeeping connection per order at a steady
 * 200 orders/s, each a page appended to the log that the orders' own syncs then flush. A crash
 * re-delivers at most this much, which at-least-once delivery allows (EventStoreDB checkpoints a
 * persistent subscription later still); stop() writes what is pending.
 */
export const POSITION_WRITE_DELAY_MS = 100;
/**
 * The longest wait before a failed page is read again, or a failed position write tried again: the
 * wait doubles with each failure in a row, from the poll interval or the write delay (a full or
 * failing disk fails every attempt alike).
 */
export const MAX_FAILURE_WAIT_MS = 5_000;

/** The wait after one more failure in a row: `first` after the first, then twice the last, at most the maximum. */
function nextFailureWait(last: number | undefined, first: number): number {
  return Math.min(last === undefined ? first : 2 * last, MAX_FAILURE_WAIT_MS);
}

/** What the group has recorded of a page's events. */
interface Recorded {
  retries: Map<bigint, number>;
  parked: Set<bigint>;
}

export interface ConsumerGroupDeps {
  db: Database.Database;
  reader: PageReader;
  wakeup: Wakeup;
  clock: Clock;
  pollMs: number;
  /** Groups started by this store instance: one active consumer per group. */
  running: Set<string>;
  /** When a settled position is written (tests pass their own). */
  positionWrites?: Deferral;
}

/**
 * The embedded twin of an EventStoreDB persistent subscription. The group's checkpoint is the
 * position of the last settled (acked or parked) event, written at most POSITION_WRITE_DELAY_MS
 * after it; retry counts and parked events survive restarts. Whatever was settled after the last
 * write is delivered again after a crash (at-least-once).
 */
export class SqliteConsumerGroup implements ConsumerGroup {
  private stopped = true;
  private loop: Promise<void> | undefined;
  private readonly group: string;
  private readonly maxRetries: number;
  private readonly sql;
  /** Settled up to here, not written yet. */
  private unwritten: bigint | undefined;
  private cancelPositionWrite: (() => void) | undefined;
  private readonly positionWrites: Deferral;
  /** The wait before the next try of a position write that failed; undefined after one that did not. */
  private positionRetryMs: number | undefined;

  constructor(
    private readonly deps: ConsumerGroupDeps,
    private readonly options: ConsumerGroupOptions,
  ) {
    this.group = options.group;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.positionWrites = deps.positionWrites ?? { delayMs: POSITION_WRITE_DELAY_MS, schedule: scheduleTimer };
    const { db } = deps;
    this.sql = {
      ensure: db.prepare('INSERT OR IGNORE INTO consumer_groups (name, position) VALUES (?, 0)'),
      checkpoint: db.prepare<[string], { position: number }>('SELECT position FROM consumer_groups WHERE name = ?'),
      advance: db.prepare('UPDATE consumer_groups SET position = ? WHERE name = ? AND position < ?'),
      // What the group recorded of a page's events: retry counts, and the events it parked.
      recorded: db.prepare<
        [{ name: string; after: bigint; last: bigint }],
        { position: number | bigint; retry_count: number; parked: 0 | 1 }
      >(
        `SELECT position, retry_count, 0 AS parked FROM consumer_group_retries
           WHERE name = @name AND position > @after AND position <= @last
         UNION ALL
         SELECT position, retry_count, 1 FROM consumer_group_parked
           WHERE name = @name AND position > @after AND position <= @last`,
      ),
      setRetries: db.prepare(
        `INSERT INTO consumer_group_retries (name, position, retry_count) VALUES (?, ?, ?)
         ON CONFLICT (name, position) DO UPDATE SET retry_count = excluded.retry_count`,
      ),
      clearRetries: db.prepare('DELETE FROM consumer_group_retries WHERE name = ? AND position = ?'),
      park: db.prepare(
        'INSERT OR REPLACE INTO consumer_group_parked (name, position, retry_count, parked_at) VALUES (?, ?, ?, ?)',
      ),
      parked: db.prepare<[string], EventRow>(
        `SELECT ${EVENT_COLUMNS.split(', ')
          .map((c) => `e.${c}`)
          .join(', ')}
         FROM consumer_group_parked p JOIN events e ON e.position = p.position
         WHERE p.name = ? ORDER BY p.position`,
      ),
    };
  }

  async start(handler: ConsumerHandler): Promise<void> {
    if (this.loop || this.deps.running.has(this.group)) {
      throw new Error(`Consumer group ${this.group} is already started in this process`);
    }
    try {
      this.sql.ensure.run(this.group);
    } catch (err) {
      throw storageError(err, STORE);
    }
    this.positionRetryMs = undefined;
    // A position the last stop could not write is written as any other.
    if (this.unwritten !== undefined) this.scheduleWrite();
    this.deps.running.add(this.group);
    this.stopped = false;
    this.loop = this.run(handler).finally(() => this.deps.running.delete(this.group));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.wakeup.interrupt();
    await this.loop;
    this.loop = undefined;
    this.writePosition();
  }

  async parked(): Promise<RecordedEvent[]> {
    try {
      return this.sql.parked.all(this.group).map(toRecordedEvent);
    } catch (err) {
      throw storageError(err, STORE);
    }
  }

  async position(): Promise<bigint> {
    try {
      return this.unwritten ?? this.storedPosition();
    } catch (err) {
      throw storageError(err, STORE);
    }
  }

  private storedPosition(): bigint {
    return BigInt(this.sql.checkpoint.get(this.group)?.position ?? 0);
  }

  /** Everything up to `position` is settled: written within the delay, or by stop(). */
  private advance(position: bigint): void {
    if (this.unwritten === undefined || position > this.unwritten) this.unwritten = position;
    this.scheduleWrite();
  }

  private scheduleWrite(): void {
    this.cancelPositionWrite ??= this.positionWrites.schedule(() => {
      this.cancelPositionWrite = undefined;
      this.writePosition();
    }, this.positionRetryMs ?? this.positionWrites.delayMs);
  }

  private writePosition(): void {
    this.cancelPositionWrite?.();
    this.cancelPositionWrite = undefined;
    const position = this.unwritten;
    if (position === undefined || !this.deps.db.open) {
      // Nothing to write (a settle wrote it with its outcome, or the store is closed).
      this.positionRetryMs = undefined;
      return;
    }
    try {
      this.sql.advance.run(position, this.group, position);
      if (this.unwritten === position) this.unwritten = undefined;
      this.positionRetryMs = undefined;
    } catch (err) {
      // Kept in memory and tried again, after a longer wait each time (stop() tries once more,
      // and gives up).
      this.positionRetryMs = nextFailureWait(this.positionRetryMs, this.positionWrites.delayMs);
      if (!this.stopped) this.scheduleWrite();
      this.report(storageError(err, STORE));
    }
  }

  private async run(handler: ConsumerHandler): Promise<void> {
    const { reader, wakeup, pollMs } = this.deps;
    await Promise.resolve(); // start() resolves before the first delivery
    // Read at the start: while it runs, this consumer alone moves the group's position. After a
    // failure it goes on from what it has settled.
    let checkpoint: bigint | undefined;
    let failureWaitMs: number | undefined;
    while (!this.stopped) {
      const seen = wakeup.current;
      try {
        checkpoint ??= this.unwritten ?? this.storedPosition();
        const page = reader.page(checkpoint, PAGE_SIZE, this.options.filter);
        // What is recorded of the page, in one read: this process is the group's only consumer, so
        // it changes only here while it runs.
        const recorded: Recorded = { retries: new Map(), parked: new Set() };
        if (page.events.length > 0) {
          const last = page.events.at(-1)!.position;
          for (const r of this.sql.recorded.all({ name: this.group, after: checkpoint, last })) {
            if (r.parked) recorded.parked.add(BigInt(r.position));
            else recorded.retries.set(BigInt(r.position), r.retry_count);
          }
        }
        if (!(await this.deliverPage(page.events, handler, recorded))) return;
        failureWaitMs = undefined;
        // Events the filter skipped move the position too, so a restart does not rescan them.
        if (page.scannedTo > checkpoint) this.advance(page.scannedTo);
        checkpoint = page.scannedTo;
        if (page.reachedHead && !this.stopped) await wakeup.wait(pollMs, seen, true);
      } catch (err) {
        // The group's own reads and writes meet a full or failing disk as SQLite's errors.
        this.report(storageError(err, STORE));
        // Events of the failed page may have been settled one by one: go on from the settled position.
        checkpoint = undefined;
        // What fails the page (a handler's StorageUnavailableError, the group's own reads and
        // writes) most often fails the next attempt alike: wait longer each time.
        // At least 1 ms: with no wait, a page failing at once would starve timers and I/O.
        failureWaitMs = nextFailureWait(failureWaitMs, Math.max(pollMs, 1));
        await this.sleep(failureWaitMs);
      }
    }
  }

  /** Waits `ms` whatever is appended meanwhile (each append would wake a plain wait); stop() ends it. */
  private async sleep(ms: number): Promise<void> {
    const { wakeup } = this.deps;
    const until = performance.now() + ms;
    for (let left = ms; left > 0 && !this.stopped; left = until - performance.now()) {
      await wakeup.wait(left, wakeup.current);
    }
  }

  /** Delivers a page, `concurrency` events at a time; false when stopped before the end. */
  private async deliverPage(events: RecordedEvent[], handler: ConsumerHandler, recorded: Recorded): Promise<boolean> {
    // A parked event is settled for good. One parked in a window that then failed comes again with
    // the window, in this run or, the position not being past it, after a restart at any
    // concurrency: it is not delivered.
    const deliver = (event: RecordedEvent, advance: boolean): Promise<boolean> =>
      recorded.parked.has(event.position)
        ? Promise.resolve(true)
        : this.deliver(event, handler, advance, recorded.retries.get(event.position));
    const size = Math.max(1, this.options.concurrency ?? 1);
    if (size === 1) {
      for (const event of events) if (!(await deliver(event, true))) return false;
      return true;
    }
    // The position moves past a window only once every event of it is settled.
    for (let i = 0; i < events.length; i += size) {
      const window = events.slice(i, i + size);
      const results = await Promise.allSettled(window.map((event) => deliver(event, false)));
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      if (results.some((r) => r.status === 'fulfilled' && !r.value)) return false;
      this.advance(window.at(-1)!.position);
    }
    return true;
  }

  /** Delivers one event until it is settled; false when stopped before that. `stored`: its retry count when the page was read. */
  private async deliver(
    event: RecordedEvent,
    handler: ConsumerHandler,
    advance: boolean,
    stored: number | undefined,
  ): Promise<boolean> {
    const hadRetries = stored !== undefined;
    for (let retryCount = stored ?? 0; ; retryCount++) {
      if (this.stopped) return false;
      let outcome: ConsumerOutcome;
      try {
        outcome = await handler(event, { retryCount });
      } catch (err) {
        // A store that cannot write (a full disk, a failed sync) is not the event's fault: no retry
        // is counted toward parking it; run() waits and delivers it again (or, stopping, the next
        // start does).
        if (err instanceof StorageUnavailableError) {
          if (this.stopped) return false;
          throw err;
        }
        this.report(err);
        outcome = 'retry';
      }
      if (outcome === 'ack' || outcome === 'park' || retryCount >= this.maxRetries) {
        this.settle(event.position, outcome === 'ack' ? null : retryCount, advance, hadRetries || retryCount > 0);
        return true;
      }
      this.sql.setRetries.run(this.group, event.position, retryCount + 1);
    }
  }

  /**
   * Records a parked or retried outcome (and, one at a time, the group's position) in one
   * transaction; a first-time ack only moves the position in memory (written later: advance).
   */
  private settle(position: bigint, parkedWithRetries: number | null, advance: boolean, hasRetryRow: boolean): void {
    // Most events are acked at their first delivery: nothing to park or clear, at most the position.
    if (parkedWithRetries === null && !hasRetryRow) {
      if (advance) this.advance(position);
      return;
    }
    this.deps.db.transaction(() => {
      if (parkedWithRetries !== null) {
        this.sql.park.run(this.group, position, parkedWithRetries, this.deps.clock.now().getTime());
      }
      this.sql.clearRetries.run(this.group, position);
      if (advance) this.sql.advance.run(position, this.group, position);
    })();
    // Written with the outcome: what was only in memory up to here is written too.
    if (advance && this.unwritten !== undefined && this.unwritten <= position) this.unwritten = undefined;
    // The store writes again: a position write backing off goes back to the usual delay.
    if (this.positionRetryMs !== undefined) {
      this.positionRetryMs = undefined;
      this.cancelPositionWrite?.();
      this.cancelPositionWrite = undefined;
      if (this.unwritten !== undefined) this.scheduleWrite();
    }
  }

  private report(err: unknown): void {
    try {
      if (this.options.onError) this.options.onError(err);
      else console.error(`consumer group ${this.group}:`, err);
    } catch (thrown) {
      // The group keeps going whatever its listener does.
      console.error(`consumer group ${this.group}: onError threw`, thrown);
    }
  }
}

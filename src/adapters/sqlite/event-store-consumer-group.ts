import type Database from 'better-sqlite3';
import type { Clock } from '../../shared/clock.js';
import type {
  ConsumerGroup,
  ConsumerGroupOptions,
  ConsumerHandler,
  ConsumerOutcome,
  RecordedEvent,
} from '../../ports/event-store.js';
import { EVENT_COLUMNS, toRecordedEvent, type EventRow, type PageReader } from './event-store-reader.js';
import type { Wakeup } from './event-store-wakeup.js';

const PAGE_SIZE = 128;
/** Positions skipped by the filter (no event delivered) before the position is written anyway. */
const SKIPPED_BEFORE_STORING = 1_000n;
export const DEFAULT_MAX_RETRIES = 10;

export interface ConsumerGroupDeps {
  db: Database.Database;
  reader: PageReader;
  wakeup: Wakeup;
  clock: Clock;
  pollMs: number;
  /** Groups started by this store instance: one active consumer per group. */
  running: Set<string>;
}

/**
 * The embedded twin of an EventStoreDB persistent subscription. The group's checkpoint is the
 * position of the last settled (acked or parked) event; retry counts survive restarts; an event
 * is settled only after the handler's outcome is committed, so a crash re-delivers it.
 */
export class SqliteConsumerGroup implements ConsumerGroup {
  private stopped = true;
  private loop: Promise<void> | undefined;
  private readonly group: string;
  private readonly maxRetries: number;
  private readonly sql;

  constructor(
    private readonly deps: ConsumerGroupDeps,
    private readonly options: ConsumerGroupOptions,
  ) {
    this.group = options.group;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const { db } = deps;
    this.sql = {
      ensure: db.prepare('INSERT OR IGNORE INTO consumer_groups (name, position) VALUES (?, 0)'),
      checkpoint: db.prepare<[string], { position: number }>('SELECT position FROM consumer_groups WHERE name = ?'),
      advance: db.prepare('UPDATE consumer_groups SET position = ? WHERE name = ? AND position < ?'),
      retries: db.prepare<[string, bigint, bigint], { position: number | bigint; retry_count: number }>(
        'SELECT position, retry_count FROM consumer_group_retries WHERE name = ? AND position > ? AND position <= ?',
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
    this.sql.ensure.run(this.group);
    this.deps.running.add(this.group);
    this.stopped = false;
    this.loop = this.run(handler).finally(() => this.deps.running.delete(this.group));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.wakeup.notify();
    await this.loop;
    this.loop = undefined;
  }

  async parked(): Promise<RecordedEvent[]> {
    return this.sql.parked.all(this.group).map(toRecordedEvent);
  }

  async position(): Promise<bigint> {
    return BigInt(this.sql.checkpoint.get(this.group)?.position ?? 0);
  }

  private async run(handler: ConsumerHandler): Promise<void> {
    const { reader, wakeup, pollMs } = this.deps;
    await Promise.resolve(); // start() resolves before the first delivery
    // Read at the start and after a failure: while it runs, this consumer alone moves the group's position.
    let checkpoint: bigint | undefined;
    let stored = 0n;
    while (!this.stopped) {
      const seen = wakeup.current;
      try {
        checkpoint ??= stored = BigInt(this.sql.checkpoint.get(this.group)?.position ?? 0);
        const page = reader.page(checkpoint, PAGE_SIZE, this.options.filter);
        // Retry counts of the page in one read: this process is the group's only consumer, so they
        // change only here while it runs.
        const retries = new Map<bigint, number>();
        if (page.events.length > 0) {
          for (const r of this.sql.retries.all(this.group, checkpoint, page.events.at(-1)!.position))
            retries.set(BigInt(r.position), r.retry_count);
        }
        if (!(await this.deliverPage(page.events, handler, retries))) return;
        checkpoint = page.scannedTo;
        // Events the filter skipped still move the stored position, so a restart does not rescan
        // them; when the page delivered nothing, only once they add up (a write per wake-up else).
        if (page.events.length > 0 || checkpoint - stored >= SKIPPED_BEFORE_STORING) {
          this.sql.advance.run(checkpoint, this.group, checkpoint);
          stored = checkpoint;
        }
        if (page.reachedHead && !this.stopped) await wakeup.wait(pollMs, seen);
      } catch (err) {
        this.report(err);
        // Events of the failed page may have been settled one by one: go on from the stored position.
        checkpoint = undefined;
        if (!this.stopped) await wakeup.wait(pollMs, wakeup.current);
      }
    }
  }

  /** Delivers a page, `concurrency` events at a time; false when stopped before the end. */
  private async deliverPage(
    events: RecordedEvent[],
    handler: ConsumerHandler,
    retries: Map<bigint, number>,
  ): Promise<boolean> {
    const size = Math.max(1, this.options.concurrency ?? 1);
    if (size === 1) {
      for (const event of events)
        if (!(await this.deliver(event, handler, true, retries.get(event.position)))) return false;
      return true;
    }
    // The position moves past a window only once every event of it is settled.
    for (let i = 0; i < events.length; i += size) {
      const window = events.slice(i, i + size);
      const results = await Promise.allSettled(
        window.map((event) => this.deliver(event, handler, false, retries.get(event.position))),
      );
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      if (results.some((r) => r.status === 'fulfilled' && !r.value)) return false;
      const last = window.at(-1)!.position;
      this.sql.advance.run(last, this.group, last);
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

  /** Records the outcome (and, one at a time, the group's position) in one transaction. */
  private settle(position: bigint, parkedWithRetries: number | null, advance: boolean, hasRetryRow: boolean): void {
    // Most events are acked at their first delivery: nothing to park or clear, at most the position.
    if (parkedWithRetries === null && !hasRetryRow) {
      if (advance) this.sql.advance.run(position, this.group, position);
      return;
    }
    this.deps.db.transaction(() => {
      if (parkedWithRetries !== null) {
        this.sql.park.run(this.group, position, parkedWithRetries, this.deps.clock.now().getTime());
      }
      this.sql.clearRetries.run(this.group, position);
      if (advance) this.sql.advance.run(position, this.group, position);
    })();
  }

  private report(err: unknown): void {
    if (this.options.onError) this.options.onError(err);
    else console.error(`consumer group ${this.group}:`, err);
  }
}

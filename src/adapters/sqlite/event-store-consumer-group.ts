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
      retries: db.prepare<[string, bigint], { retry_count: number }>(
        'SELECT retry_count FROM consumer_group_retries WHERE name = ? AND position = ?',
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
        `SELECT ${EVENT_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ')}
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

  private async run(handler: ConsumerHandler): Promise<void> {
    const { reader, wakeup, pollMs } = this.deps;
    await Promise.resolve(); // start() resolves before the first delivery
    while (!this.stopped) {
      const seen = wakeup.current;
      try {
        const checkpoint = BigInt(this.sql.checkpoint.get(this.group)?.position ?? 0);
        const page = reader.page(checkpoint, PAGE_SIZE, this.options.filter);
        if (!(await this.deliverPage(page.events, handler))) return;
        // Events the filter skipped still move the checkpoint, so a restart does not rescan them.
        this.sql.advance.run(page.scannedTo, this.group, page.scannedTo);
        if (page.reachedHead && !this.stopped) await wakeup.wait(pollMs, seen);
      } catch (err) {
        this.report(err);
        if (!this.stopped) await wakeup.wait(pollMs, wakeup.current);
      }
    }
  }

  /** Delivers a page, `concurrency` events at a time; false when stopped before the end. */
  private async deliverPage(events: RecordedEvent[], handler: ConsumerHandler): Promise<boolean> {
    const size = Math.max(1, this.options.concurrency ?? 1);
    if (size === 1) {
      for (const event of events) if (!(await this.deliver(event, handler, true))) return false;
      return true;
    }
    // The position moves past a window only once every event of it is settled.
    for (let i = 0; i < events.length; i += size) {
      const window = events.slice(i, i + size);
      const results = await Promise.allSettled(window.map((event) => this.deliver(event, handler, false)));
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      if (results.some((r) => r.status === 'fulfilled' && !r.value)) return false;
      const last = window.at(-1)!.position;
      this.sql.advance.run(last, this.group, last);
    }
    return true;
  }

  /** Delivers one event until it is settled; false when stopped before that. */
  private async deliver(event: RecordedEvent, handler: ConsumerHandler, advance: boolean): Promise<boolean> {
    for (;;) {
      if (this.stopped) return false;
      const retryCount = this.sql.retries.get(this.group, event.position)?.retry_count ?? 0;
      let outcome: ConsumerOutcome;
      try {
        outcome = await handler(event, { retryCount });
      } catch (err) {
        this.report(err);
        outcome = 'retry';
      }
      if (outcome === 'ack' || outcome === 'park' || retryCount >= this.maxRetries) {
        this.settle(event.position, outcome === 'ack' ? null : retryCount, advance);
        return true;
      }
      this.sql.setRetries.run(this.group, event.position, retryCount + 1);
    }
  }

  /** Records the outcome (and, one at a time, the group's position) in one transaction. */
  private settle(position: bigint, parkedWithRetries: number | null, advance: boolean): void {
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

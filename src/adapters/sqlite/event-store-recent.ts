import { matchesFilter, type EventFilter } from '../../ports/event-filter.js';

/** A row of EVENT_COLUMNS as an array (better-sqlite3's raw mode), in column order. */
export type EventTuple = [
  position: number,
  streamId: string,
  revision: number,
  id: string,
  type: string,
  data: string,
  metadata: string,
  recordedAt: number,
];

/**
 * How many of the newest committed events are kept: about 0.7 s of appends at 500 orders/s, where
 * the readers lag by milliseconds. Each kept event holds about 1 KB of row text; 4,096 and 8,192
 * saved no CPU per order (docs/operations.md, Memory).
 */
export const RECENT_EVENTS = 1024;

/**
 * The newest events this process committed, as the rows SQLite holds, so that the log's readers
 * here (auto-accept, the webhook dispatcher, the projections: three readers of every event) take
 * the events just appended from memory instead of each running a read transaction for them.
 *
 * The positions kept are always one run with no gap: every position in it is a commit of this
 * process, so a reader that needs positions inside it needs nothing else. An append by another
 * process on the same file takes a position in between: the next one of ours does not follow on,
 * and the run starts again from it (readers of the positions before read SQLite). Rows are added
 * only once their transaction has committed. The trims this process makes (bounded streams) are
 * applied here too. A trim by another process comes with an append of its own, whose newer position
 * sends readers to SQLite once they may see it; until then (this process's commits awaiting their
 * sync hold readers back) a just-trimmed row can still be read here, as it could a moment earlier.
 * `setStreamMaxCount` trims without an append: the service calls it only on a new stream.
 */
export class RecentEvents {
  /** rows[i] holds position first + i; null: trimmed. */
  private rows: (EventTuple | null)[] = [];
  private first = 0;

  constructor(private readonly capacity = RECENT_EVENTS) {}

  /** Rows of one commit, in position order. */
  add(rows: readonly EventTuple[]): void {
    if (this.capacity === 0) return;
    for (const row of rows) {
      if (this.rows.length === 0 || row[0] !== this.first + this.rows.length) {
        this.rows = [];
        this.first = row[0];
      }
      this.rows.push(row);
    }
    const over = this.rows.length - this.capacity;
    // Dropped in chunks, so the array is not shifted at every commit.
    if (over >= this.capacity / 8) {
      this.rows = this.rows.slice(over);
      this.first += over;
    }
  }

  /** The stream's rows up to `revision` were deleted (a bounded stream). */
  trim(streamId: string, revision: number): void {
    this.rows.forEach((row, i) => {
      if (row && row[1] === streamId && row[2] <= revision) this.rows[i] = null;
    });
  }

  /**
   * Whether every position in `after < position <= head` is one of this process's rows: the rows
   * kept are one unbroken run of its commits (another process's row in between starts a new run).
   */
  holdsAll(after: number, head: number): boolean {
    return this.rows.length > 0 && after + 1 >= this.first && head <= this.first + this.rows.length - 1;
  }

  /**
   * The rows SQLite would answer for `position > after AND position <= head` with the filter, in
   * order, at most `maxCount`; undefined when some of those positions are not kept here.
   */
  rowsBetween(after: number, head: number, maxCount: number, filter?: EventFilter): EventTuple[] | undefined {
    if (head <= after) return [];
    if (!this.holdsAll(after, head)) return undefined;
    const out: EventTuple[] = [];
    for (let i = after + 1 - this.first, end = head - this.first; i <= end && out.length < maxCount; i++) {
      const row = this.rows[i];
      if (!row) continue;
      if (filter && !matchesFilter(row[1], row[4], filter)) continue;
      out.push(row);
    }
    return out;
  }
}

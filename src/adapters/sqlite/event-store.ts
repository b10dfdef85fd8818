import Database from 'better-sqlite3';
import { systemClock, type Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type {
  AppendOptions,
  AppendResult,
  ConsumerGroup,
  ConsumerGroupOptions,
  EventStore,
  ExpectedRevision,
  ListStreamsOptions,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamInfo,
  SubscribeToAllOptions,
  Subscription,
} from '../../ports/event-store.js';
import { assertStreamId, checkExpected, prepareEvent } from '../event-store-checks.js';
import { SqliteConsumerGroup } from './event-store-consumer-group.js';
import { EVENT_COLUMNS, PageReader, toStreamEvent, type EventRow } from './event-store-reader.js';
import { tailSubscription } from './event-store-tail.js';
import { RecentEvents, type EventTuple } from './event-store-recent.js';
import { Wakeup } from './event-store-wakeup.js';
import { GroupCommit, type Deferral, type Durability } from './event-store-group-commit.js';
import { walFsync } from './event-store-wal-fsync.js';
import { WalCheckpointer, type CheckpointResult } from './event-store-checkpointer.js';
import { LOCK_WAIT_MS, createPrivately, useWal } from './open.js';

/**
 * Schema of the embedded event store. `position` is the global order, the rowid: SQLite gives a
 * new row the largest rowid plus one, so a position is never reused as long as the newest row is
 * never deleted, and it is not: trimming a bounded stream keeps at least its last event, and the
 * log's newest event is the last of its stream. (AUTOINCREMENT would add a write of
 * `sqlite_sequence` to every commit: 5.3 against 4.1 log pages per single-event commit. Stores
 * created with it keep it; both number the same way.) `streams` holds each stream's last revision
 * (the optimistic concurrency check reads one row) and its optional max count; last_revision -1
 * means the max count was set before the first event.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position    INTEGER PRIMARY KEY,
  stream_id   TEXT    NOT NULL,
  revision    INTEGER NOT NULL,
  id          TEXT    NOT NULL,
  type        TEXT    NOT NULL,
  data        TEXT    NOT NULL,
  metadata    TEXT    NOT NULL,
  recorded_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_stream_revision ON events (stream_id, revision);
CREATE TABLE IF NOT EXISTS streams (
  stream_id     TEXT PRIMARY KEY,
  last_revision INTEGER NOT NULL,
  max_count     INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS consumer_groups (
  name     TEXT PRIMARY KEY,
  position INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS consumer_group_retries (
  name TEXT NOT NULL, position INTEGER NOT NULL, retry_count INTEGER NOT NULL,
  PRIMARY KEY (name, position)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS consumer_group_parked (
  name TEXT NOT NULL, position INTEGER NOT NULL, retry_count INTEGER NOT NULL, parked_at INTEGER NOT NULL,
  PRIMARY KEY (name, position)
) WITHOUT ROWID;
`;

export interface SqliteEventStoreOptions {
  file: string;
  /** FULL (default): an acknowledged append survives power loss, not only a process crash. */
  synchronous?: 'NORMAL' | 'FULL';
  clock?: Clock;
  /** How often tailing readers look for appends made by other processes. */
  pollIntervalMs?: number;
  /** How many of this process's newest events serve log readers from memory (0: none). */
  recentEvents?: number;
  /** Where failures of the store's own background work are reported (console when absent: the CLI). */
  logger?: Pick<Logger, 'error'>;
  /** When consumer groups write the positions they have settled (tests pass their own). */
  positionWrites?: Deferral;
  /** When commits of only 'ordered' appends are synced without a durable one after them (tests pass their own). */
  orderedSyncs?: Deferral;
  /** When consumer groups wake after an append (CONSUMER_WAKE_DELAY_MS; tests pass their own). */
  consumerWakes?: Deferral;
}

const MAX_REVISION = Number.MAX_SAFE_INTEGER;

/**
 * The first name (in SQLite's byte order) after every name that starts with `prefix`: the prefix
 * with its last character one higher, when that is ASCII (every prefix the service uses). Else an
 * empty BLOB, which SQLite orders after all text: no upper bound, the per-row check alone.
 */
function pastPrefix(prefix: string): string | Buffer {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix !== '' && last < 0x7f ? prefix.slice(0, -1) + String.fromCharCode(last + 1) : Buffer.alloc(0);
}

/** SQLite's default automatic checkpoint threshold, in log pages. */
const SQLITE_AUTOCHECKPOINT = 1000;
const DEFAULT_READ_ALL_COUNT = 1000;
/** Stream reads with their count written into the statement: at most this many statements, counts up to this. */
const MAX_COUNTED_READS = 16;
const MAX_WRITTEN_COUNT = 10_000;

/** What an append wrote, for the recent events once its transaction has committed. */
interface Written {
  rows: EventTuple[];
  /** The stream's rows up to this revision were trimmed. */
  trimmedTo?: number;
}

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly clock: Clock;
  private readonly pollMs: number;
  private readonly wakeup: Wakeup;
  private readonly recent: RecentEvents;
  private readonly reader: PageReader;
  private readonly subscriptions = new Set<Subscription>();
  private readonly groups = new Set<ConsumerGroup>();
  private readonly runningGroups = new Set<string>();
  private readonly sql;
  private readonly appendTx;
  private readonly writes: GroupCommit;
  private readonly file: string;
  private bookkeepingDb: Database.Database | undefined;
  private readonly durability: Durability | undefined;
  private readonly checkpointer: WalCheckpointer | undefined;
  private checkpointerFailed = false;
  private readonly logger: Pick<Logger, 'error'> | undefined;
  private readonly positionWrites: Deferral | undefined;
  private readonly countedReads = new Map<number, Database.Statement<[string, number], EventRow>>();

  constructor(options: SqliteEventStoreOptions) {
    this.positionWrites = options.positionWrites;
    this.wakeup = new Wakeup(options.consumerWakes);
    this.clock = options.clock ?? systemClock;
    this.pollMs = options.pollIntervalMs ?? 25;
    this.recent = new RecentEvents(options.recentEvents);
    this.file = options.file;
    this.logger = options.logger;
    createPrivately(options.file);
    // timeout: how long a writer waits for another process's write lock (SQLITE_BUSY otherwise).
    this.db = new Database(options.file, { timeout: LOCK_WAIT_MS });
    useWal(this.db);
    this.db.exec(SCHEMA);
    const full = (options.synchronous ?? 'FULL') === 'FULL';
    // FULL: the log's fsync runs on another thread (walFsync), so the connection itself needs none.
    const durability = (this.durability = full ? walFsync(this.localFile, () => this.reader.newest()) : undefined);
    this.db.pragma(`synchronous = ${full && !durability ? 'FULL' : 'NORMAL'}`);
    this.reader = new PageReader(this.db, () => this.writes.visibleHead(), this.recent);
    const db = this.db;
    this.sql = {
      stream: db.prepare<[string], { last_revision: number; max_count: number | null }>(
        'SELECT last_revision, max_count FROM streams WHERE stream_id = ?',
      ),
      insert: db.prepare(
        'INSERT INTO events (stream_id, revision, id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      setRevision: db.prepare(
        `INSERT INTO streams (stream_id, last_revision) VALUES (?, ?)
         ON CONFLICT (stream_id) DO UPDATE SET last_revision = excluded.last_revision`,
      ),
      setMaxCount: db.prepare(
        `INSERT INTO streams (stream_id, last_revision, max_count) VALUES (?, -1, ?)
         ON CONFLICT (stream_id) DO UPDATE SET max_count = excluded.max_count`,
      ),
      trim: db.prepare('DELETE FROM events WHERE stream_id = ? AND revision <= ?'),
      forwards: db.prepare<[string, number, number], EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?`,
      ),
      backwards: db.prepare<[string, number, number], EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
      ),
      // Without a LIMIT parameter: a bound LIMIT makes an empty read about 4x slower (readStream
      // writes common counts into the statement instead), and most reads (a whole stream, or its
      // tail after a kept fold) have no count.
      forwardsAll: db.prepare<[string, number], EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision`,
      ),
      backwardsAll: db.prepare<[string, number], EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC`,
      ),
      // A range of the primary key: from past `after` (its successor is `after` || char(0); names
      // are never '', so '' is "from the start") or from the prefix, whichever is later, up to the
      // first name past the prefix (pastPrefix); the prefix is still checked on each row.
      list: db.prepare<[string, string, string | Buffer, string, string, number], StreamInfo>(
        `SELECT stream_id AS streamId, last_revision AS lastRevision FROM streams
         WHERE stream_id >= max(? || char(0), ?) AND stream_id < ?
           AND last_revision >= 0 AND substr(stream_id, 1, length(?)) = ?
         ORDER BY stream_id LIMIT ?`,
      ),
    };
    this.appendTx = db.transaction(
      (streamId: string, events: Required<NewEvent>[], expected: ExpectedRevision, written: Written) => {
        const stream = this.sql.stream.get(streamId);
        const current = stream?.last_revision ?? -1;
        checkExpected(streamId, expected, current);
        const recordedAt = this.clock.now().getTime();
        let revision = current;
        let position = 0;
        for (const e of events) {
          revision++;
          const data = JSON.stringify(e.data);
          const metadata = JSON.stringify(e.metadata);
          position = Number(
            this.sql.insert.run(streamId, revision, e.id, e.type, data, metadata, recordedAt).lastInsertRowid,
          );
          written.rows.push([position, streamId, revision, e.id, e.type, data, metadata, recordedAt]);
        }
        this.sql.setRevision.run(streamId, revision);
        if (stream?.max_count) written.trimmedTo = this.trim(streamId, revision - stream.max_count);
        return { nextExpectedRevision: revision, position: BigInt(position) };
      },
    );
    this.writes = new GroupCommit(db, () => this.wakeup.notify(), durability, options.orderedSyncs);
    this.checkpointer = this.startCheckpointer();
  }

  /** Checkpoints move to a worker thread (see WalCheckpointer); if it fails, SQLite's own come back. */
  private startCheckpointer(): WalCheckpointer | undefined {
    const file = this.localFile;
    if (file === undefined) return undefined;
    this.db.pragma('wal_autocheckpoint = 0');
    return new WalCheckpointer(file, {
      onError: (err) => {
        if (this.logger)
          this.logger.error({ err }, 'WAL checkpointer stopped; SQLite checkpoints on commit from now on');
        else console.error('event store:', err);
        this.checkpointerFailed = true;
        for (const db of [this.db, this.bookkeepingDb])
          if (db?.open) db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT}`);
      },
    });
  }

  /** A checkpoint of the log into the database file now, on the checkpointer's thread (tests). */
  async checkpoint(): Promise<CheckpointResult | null> {
    return this.checkpointer ? this.checkpointer.checkpointNow() : null;
  }

  async append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    assertStreamId(streamId);
    if (events.length === 0) throw new TypeError('append needs at least one event');
    const expected = options.expectedRevision;
    if (typeof expected === 'number' && !(Number.isInteger(expected) && expected >= 0)) {
      throw new TypeError(`expectedRevision must be a revision (integer >= 0), got ${expected}`);
    }
    const prepared = events.map(prepareEvent);
    // Committed with the other appends of this event-loop turn in one IMMEDIATE transaction (the
    // write lock is taken before any revision is read, so two processes cannot both pass the check).
    const written: Written = { rows: [] };
    return this.writes.write(
      () => this.appendTx(streamId, prepared, expected, written),
      options.durability === 'ordered',
      () => {
        this.recent.add(written.rows);
        if (written.trimmedTo !== undefined) this.recent.trim(streamId, written.trimmedTo);
      },
    );
  }

  /**
   * Reads see commits whose fsync has not returned: GroupCommit.whenDurable waits for one. At
   * synchronous=NORMAL there is no fsync to wait for (that setting promises nothing on power loss);
   * at FULL on a temporary or in-memory log, SQLite syncs each commit itself.
   */
  whenDurable(): Promise<void> {
    return this.writes.whenDurable();
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const from = options.fromRevision ?? (options.backwards ? MAX_REVISION : 0);
    const limit = options.maxCount;
    let rows: EventRow[];
    if (limit === undefined)
      rows = (options.backwards ? this.sql.backwardsAll : this.sql.forwardsAll).all(streamId, from);
    else {
      const counted = this.countedRead(options.backwards === true, limit);
      rows = counted
        ? counted.all(streamId, from)
        : (options.backwards ? this.sql.backwards : this.sql.forwards).all(streamId, from, limit);
    }
    return rows.map(toStreamEvent);
  }

  /**
   * A stream read with its count written into the statement, for the few counts callers use (a
   * claim, a rider's last position, a lease's last event: 1). A bound LIMIT costs more per run than
   * the read itself (why was measured, not traced): an empty read took 27 µs against 6 µs with the
   * count written in, and a read of one event 178 against 55 µs in the service at 200 orders/s.
   * Undefined for other counts: the bound statement serves them.
   */
  private countedRead(backwards: boolean, limit: number): Database.Statement<[string, number], EventRow> | undefined {
    if (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_WRITTEN_COUNT) return undefined;
    const key = backwards ? -1 - limit : limit;
    let statement = this.countedReads.get(key);
    if (!statement && this.countedReads.size < MAX_COUNTED_READS) {
      statement = this.db.prepare<[string, number], EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND revision ${backwards ? '<=' : '>='} ?
         ORDER BY revision${backwards ? ' DESC' : ''} LIMIT ${limit}`,
      );
      this.countedReads.set(key, statement);
    }
    return statement;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? DEFAULT_READ_ALL_COUNT;
    return this.reader.page(options.after ?? 0n, maxCount, options.filter).events;
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    const inner = tailSubscription(this.reader, this.wakeup, this.pollMs, options);
    const subscription: Subscription = {
      stop: async () => {
        this.subscriptions.delete(subscription);
        await inner.stop();
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async headPosition(): Promise<bigint> {
    return this.reader.head();
  }

  /**
   * The log's newest position. While this process's own commits await their sync (GroupCommit), its
   * readers stop before them, and so before any other process's commits after them, which may be
   * acknowledged writes: then the sync starts now, and the wait is for the newest position. When the
   * rows held back are all this process's own (the recent events hold exactly them), nothing written
   * by others is hidden: the readers' head is the position, and no sync is spent (a claim and its
   * order still share one). After a failed sync the readers' limit stays: their head.
   */
  async readYourWritesPosition(): Promise<bigint> {
    const newest = this.reader.newest();
    const head = this.reader.head(newest);
    if (newest <= head || this.writes.failed || this.recent.holdsAll(Number(head), Number(newest))) return head;
    this.writes.syncNow(newest);
    return newest;
  }

  async setStreamMaxCount(streamId: string, maxCount: number): Promise<void> {
    assertStreamId(streamId);
    if (!Number.isInteger(maxCount) || maxCount < 1) throw new TypeError('maxCount must be an integer >= 1');
    // Through the group commit, so it is as durable as an append.
    let trimmedTo: number | undefined;
    await this.writes.write(
      () => {
        this.sql.setMaxCount.run(streamId, maxCount);
        const last = this.sql.stream.get(streamId)?.last_revision ?? -1;
        trimmedTo = this.trim(streamId, last - maxCount);
      },
      false,
      () => trimmedTo !== undefined && this.recent.trim(streamId, trimmedTo),
    );
  }

  /** Deletes the stream's rows up to `revision` (a bounded stream); that revision when any were deleted. */
  private trim(streamId: string, revision: number): number | undefined {
    return this.sql.trim.run(streamId, revision).changes > 0 ? revision : undefined;
  }

  async listStreams(options: ListStreamsOptions = {}): Promise<StreamInfo[]> {
    const prefix = options.prefix ?? '';
    return this.sql.list.all(options.after ?? '', prefix, pastPrefix(prefix), prefix, prefix, options.limit ?? -1);
  }

  consumerGroup(options: ConsumerGroupOptions): ConsumerGroup {
    const deps = {
      db: this.bookkeeping(),
      reader: this.reader,
      wakeup: this.wakeup,
      clock: this.clock,
      pollMs: this.pollMs,
      running: this.runningGroups,
      ...(this.positionWrites ? { positionWrites: this.positionWrites } : {}),
    };
    const group = new SqliteConsumerGroup(deps, options);
    this.groups.add(group);
    return group;
  }

  get localFile(): string | undefined {
    return this.file === '' || this.file === ':memory:' || this.db.memory ? undefined : this.file;
  }

  async close(): Promise<void> {
    // Readers first: what a stopping group's handler still appends is then covered by the drain.
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await Promise.all([...this.groups].map((g) => g.stop()));
    if (this.db.open) this.writes.flush();
    await this.writes.drain();
    this.durability?.close();
    await this.checkpointer?.close();
    if (this.bookkeepingDb?.open) this.bookkeepingDb.close();
    if (this.db.open) this.db.close();
  }

  /**
   * Consumer groups keep their checkpoints, retry counts and parked events on a second connection
   * with synchronous=NORMAL: a settle costs no fsync. A process crash loses nothing (WAL); a power
   * loss can lose the newest settles, and those events are delivered again, which at-least-once
   * delivery allows. A settle is never durable before the events it follows: those were appended
   * earlier to the same WAL, with FULL. Without this, every settled event would cost one fsync, one
   * at a time per group, and the event loop would wait for each.
   */
  private bookkeeping(): Database.Database {
    // An in-memory database cannot be opened twice; it has no fsync to save either.
    const file = this.localFile;
    if (file === undefined) return this.db;
    if (!this.bookkeepingDb) {
      this.bookkeepingDb = new Database(file, { timeout: LOCK_WAIT_MS });
      this.bookkeepingDb.pragma('synchronous = NORMAL');
      if (this.checkpointer && !this.checkpointerFailed) this.bookkeepingDb.pragma('wal_autocheckpoint = 0');
    }
    return this.bookkeepingDb;
  }
}

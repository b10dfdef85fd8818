import type Database from 'better-sqlite3';
import { StorageUnavailableError } from '../../ports/event-store.js';
import { storageError } from './storage-errors.js';

/** Errors of a full or failing disk reach callers as the port's StorageUnavailableError, naming this store. */
export const STORE = 'event store';

interface Write {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Answered at its commit; the next fsync still covers it ('ordered' in the event-store port). */
  ordered: boolean;
  /** Called once its transaction has committed (before the fsync), if it succeeded. */
  committed: (() => void) | undefined;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Committed {
  batch: Write[];
  outcomes: Outcome[];
}

/**
 * Makes committed writes durable off the event loop: an fsync of the write-ahead log on libuv's
 * thread pool. The connection then commits with synchronous=NORMAL (no fsync of its own).
 */
export interface Durability {
  sync(): Promise<void>;
  /** The newest position in the log now (what the next sync will cover). */
  head(): bigint;
  close(): void;
}

/**
 * Group commit: the writes requested during one turn of the event loop share one IMMEDIATE
 * transaction, so one commit. Each write runs in its own savepoint, so one that throws (a wrong
 * expected revision) rolls back alone while the others commit.
 *
 * With `durability` (synchronous=FULL), the commit itself does not wait for the disk: the fsync
 * of the log runs on another thread, and every caller's promise settles only after the fsync that
 * covers its commit. An acknowledged write is as durable as with a FULL commit, and the event loop
 * never blocks on the disk. Writes requested while an fsync runs are held (unless one of them is
 * 'ordered') and committed together when it returns, just before the next fsync: a write could not
 * be acknowledged sooner anyway,
 * and one commit per fsync writes each shared page (the log's last leaf, its indexes) to the
 * write-ahead log once instead of once per turn; at 500 orders/s those repeated pages would be most
 * of the bytes each fsync flushes. Until then the rows are hidden from this process's log readers
 * (`visibleHead`), so no projection, webhook or consumer acts on an event a power loss could
 * still take back.
 *
 * A commit of only 'ordered' writes starts no fsync of its own: nobody waits for it, and the next
 * durable write's fsync covers it (an idempotency claim, then its order: one fsync, not two). When
 * no durable write follows within `orderedSyncDelayMs`, a sync of its own makes it durable and
 * visible to the log's readers, so a reaction written 'ordered' (auto-accept's acceptance) is seen
 * at most that much later on an idle service.
 *
 * An fsync that fails ends writing until the process restarts. Whether the disk has what it covered
 * is unknown, and a later fsync proves nothing: Linux may drop the pages whose write-back failed
 * and report the next fsync clean, and SQLite's recovery of the log stops at the first frame it
 * cannot verify, so a power loss would take every later commit with the lost one. From then on
 * every write and every wait for durability is refused with the port's StorageUnavailableError
 * (`unsynced`), and the readers' limit stays where it was; only a restart makes the log writable
 * again (reliability.md says what the restarted process reads back).
 */
export class GroupCommit {
  private queue: Write[] = [];
  private unsynced: Committed[] = [];
  private syncing: Promise<void> | undefined;
  private flushScheduled = false;
  /** While writes await their fsync: the newest position that is durable. */
  private durableHead: bigint | null = null;
  /**
   * The log's head when our newest fsync that succeeded began: every commit up to there, another
   * process's too, is durable (-1 before the first: a previous process's last commits may not be).
   */
  private syncedHead = -1n;
  /** Set when an fsync fails: what every later write and wait is refused with. */
  private syncFailed: StorageUnavailableError | undefined;
  /** A reader waits for what the sync in flight does not cover: the next one starts at its end. */
  private syncAfterThis = false;
  /** The log's head when the sync in flight began: what it covers. */
  private syncingFrom = -1n;
  /** Cancels the pending sync of commits that hold only 'ordered' writes. */
  private cancelDeferredSync: (() => void) | undefined;
  private readonly commitBatch: Database.Transaction<(batch: Write[]) => Outcome[]>;

  constructor(
    private readonly db: Database.Database,
    private readonly afterCommit: () => void,
    private readonly durability?: Durability,
    private readonly deferral: Deferral = { delayMs: ORDERED_SYNC_DELAY_MS, schedule: scheduleTimer },
  ) {
    // A transaction function called inside another one runs as a savepoint.
    const savepoint = db.transaction((run: () => unknown) => run());
    this.commitBatch = db.transaction((batch: Write[]) =>
      batch.map((write): Outcome => {
        try {
          return { ok: true, value: savepoint(write.run) };
        } catch (error) {
          // An I/O error can end the whole transaction: then nothing of the batch may be reported as written.
          if (!db.inTransaction) throw error;
          return { ok: false, error };
        }
      }),
    );
  }

  /**
   * `ordered`: answer once committed, before the fsync. Safe because the log is one file appended
   * in commit order: any later write's fsync covers this commit too.
   */
  write<T>(run: () => T, ordered = false, committed?: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject, ordered, committed });
      // While an fsync runs, its end commits the queue (syncNext), unless an 'ordered' write is
      // waiting: it is answered at its commit, so holding it would make it wait for a sync after all.
      if (!this.flushScheduled && (!this.syncing || ordered)) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Starts the sync of what is committed now instead of after its deferral: a reader waits for a
   * position it hides (another process's commit after one of ours). One in flight covers it.
   */
  syncNow(position: bigint): void {
    // One in flight that began before that commit does not cover it: the next starts as soon as it ends.
    if (!this.syncing) this.syncNext(true);
    else if (this.syncingFrom < position) this.syncAfterThis = true;
  }

  /** An fsync has failed: nothing more is written, and the readers' limit stays where it was. */
  get failed(): boolean {
    return this.syncFailed !== undefined;
  }

  /** The newest position this process's readers may see, or null when every commit is durable. */
  visibleHead(): bigint | null {
    return this.durableHead;
  }

  /** Commits what is queued now; close() calls it so no queued write is dropped. */
  flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0 || !this.db.open) {
      for (const w of batch) w.reject(new Error('the event store is closed'));
      return;
    }
    if (this.syncFailed) {
      for (const w of batch) w.reject(this.syncFailed);
      return;
    }
    if (this.durability && this.durableHead === null) this.durableHead = this.durability.head();
    let outcomes: Outcome[];
    try {
      outcomes = this.commitBatch.immediate(batch);
    } catch (error) {
      for (const w of batch) w.reject(storageError(error, STORE));
      if (!this.syncing && this.unsynced.length === 0) this.durableHead = null;
      return;
    }
    batch.forEach((w, i) => outcomes[i]!.ok && w.committed?.());
    if (!this.durability) return this.settle([{ batch, outcomes }]);
    batch.forEach((w, i) => w.ordered && answer(w, outcomes[i]!));
    this.unsynced.push({ batch, outcomes });
    this.syncNext();
  }

  /**
   * Resolves once every commit in the log at the time of the call is durable: this process's (an
   * 'ordered' one is synced now, not after its deferral) and, on a file other processes share,
   * theirs (an fsync of the log covers whichever process wrote it). Waiters share the fsync in
   * flight or start one as any other. Rejects once an fsync has failed: what it covered may be what
   * the caller read. For an answer that rests on writes it read, not made (event-store port).
   */
  async whenDurable(): Promise<void> {
    if (!this.durability) return;
    const head = this.durability.head();
    while (this.syncedHead < head) {
      if (this.syncFailed) throw this.syncFailed;
      if (!this.syncing) this.syncNext(true, true);
      await this.syncing;
    }
  }

  /** Resolves once every commit made so far is durable (close() waits for it). */
  async drain(): Promise<void> {
    this.syncNext(true);
    while (this.syncing) {
      await this.syncing;
      this.syncNext(true);
    }
  }

  /**
   * Starts the fsync of what is committed, unless only 'ordered' writes wait for it (then later).
   * `evenIfNoneWaits`: also when nothing of this process's waits (another process's commits).
   */
  private syncNext(now = false, evenIfNoneWaits = false): void {
    if (this.syncing || this.syncFailed || !this.durability || (this.unsynced.length === 0 && !evenIfNoneWaits)) return;
    if (!now && this.unsynced.every(({ batch }) => batch.every((w) => w.ordered))) {
      this.cancelDeferredSync ??= this.deferral.schedule(() => {
        this.cancelDeferredSync = undefined;
        this.syncNext(true);
      }, this.deferral.delayMs);
      return;
    }
    this.cancelDeferredSync?.();
    this.cancelDeferredSync = undefined;
    // The head first: if reading it throws, the commits still wait for a sync.
    const head = this.durability.head();
    const covered = this.unsynced;
    this.unsynced = [];
    this.syncingFrom = head;
    this.syncing = this.durability
      .sync()
      .then(
        () => {
          this.durableHead = this.unsynced.length === 0 ? null : this.atLeast(head);
          if (head > this.syncedHead) this.syncedHead = head;
          this.settle(covered);
        },
        (error: unknown) => {
          // Writing ends here (see the class comment). The callers hear that whether the disk has
          // their writes is unknown, and retry, as the spec asks; so do those committed meanwhile,
          // which no fsync will cover now. What readers see stays as it was.
          const failed = (this.syncFailed = new StorageUnavailableError(STORE, 'unsynced', { cause: error }));
          const refused = [...covered, ...this.unsynced];
          this.unsynced = [];
          this.cancelDeferredSync?.();
          this.cancelDeferredSync = undefined;
          for (const { batch } of refused) for (const w of batch) if (!w.ordered) w.reject(failed);
          this.afterCommit();
        },
      )
      .finally(() => {
        this.syncing = undefined;
        const now = this.syncAfterThis;
        this.syncAfterThis = false;
        // The writes held during this fsync commit now (flush starts the next fsync).
        if (this.queue.length > 0) this.flush();
        this.syncNext(now);
      });
  }

  /**
   * The readers' limit after a sync that covered up to `head`: never lower than it was. A sync
   * started with nothing of ours waiting (whenDurable) may end below a limit an 'ordered' commit
   * made meanwhile set from the log's head, which another process's commits had moved on.
   */
  private atLeast(head: bigint): bigint {
    return this.durableHead !== null && this.durableHead > head ? this.durableHead : head;
  }

  private settle(committed: Committed[]): void {
    this.afterCommit();
    // With durability, 'ordered' writes were answered at their commit (flush).
    for (const { batch, outcomes } of committed) {
      batch.forEach((w, i) => {
        if (!(this.durability && w.ordered)) answer(w, outcomes[i]!);
      });
    }
  }
}

/** How long commits of only 'ordered' writes wait for a durable write's fsync to cover them. */
export const ORDERED_SYNC_DELAY_MS = 10;

/** When the sync of 'ordered'-only commits runs (a timer; tests pass their own). */
export interface Deferral {
  delayMs: number;
  /** Runs `run` after `ms` and returns a function that cancels it. */
  schedule(run: () => void, ms: number): () => void;
}

export function scheduleTimer(run: () => void, ms: number): () => void {
  const timer = setTimeout(run, ms);
  return () => clearTimeout(timer);
}

function answer(write: Write, outcome: Outcome): void {
  if (outcome.ok) write.resolve(outcome.value);
  else write.reject(storageError(outcome.error, STORE));
}

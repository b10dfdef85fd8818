import type Database from 'better-sqlite3';

interface Write {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit: the writes requested during one turn of the event loop share one IMMEDIATE
 * transaction, so one commit and, with synchronous=FULL, one fsync. A disk that does a few
 * hundred fsyncs per second otherwise caps the whole service at that many writes. Each write runs
 * in its own savepoint, so one that throws (a wrong expected revision) rolls back alone while the
 * others commit. Every caller's promise settles after the commit: an acknowledged write is exactly
 * as durable as with one transaction per write.
 */
export class GroupCommit {
  private queue: Write[] = [];
  private readonly commitBatch: Database.Transaction<(batch: Write[]) => Outcome[]>;

  constructor(
    private readonly db: Database.Database,
    private readonly afterCommit: () => void,
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

  write<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now; close() calls it so no queued write is dropped. */
  flush(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0 || !this.db.open) {
      for (const w of batch) w.reject(new Error('the event store is closed'));
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = this.commitBatch.immediate(batch);
    } catch (error) {
      for (const w of batch) w.reject(error);
      return;
    }
    this.afterCommit();
    outcomes.forEach((o, i) => (o.ok ? batch[i]!.resolve(o.value) : batch[i]!.reject(o.error)));
  }
}

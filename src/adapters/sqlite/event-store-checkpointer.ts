import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What one `PRAGMA wal_checkpoint(PASSIVE)` reported: frames in the log, frames copied into the database. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** 16,384 frames of 4 KB: the log is kept to about 64 MB, reused from the top once restarted. */
const DEFAULT_RESTART_FRAMES = 16_384;
/** Longest a RESTART holds writers back waiting for readers; the service's own reads take far less. */
const RESTART_WAIT_MS = 100;
/** After a RESTART a reader refused: the next one is tried this much later. */
const RESTART_BACKOFF_MS = 5_000;

// CommonJS, evaluated in the worker: runs from src (tests) and dist alike, with no file to locate.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const message = (err) => String((err && err.message) || err);
let db;
let restartAfter = 0;
const checkpoint = () => {
  try {
    db = db || open();
    const passive = db.pragma('wal_checkpoint(PASSIVE)')[0];
    // Under steady writes a PASSIVE checkpoint never catches up with the head, so the log is never
    // restarted and grows without end; past restartFrames, RESTART makes the next writer begin it
    // again from the top (it holds new writers back for the last frames and the sync).
    if (passive.log < workerData.restartFrames || Date.now() < restartAfter) return passive;
    // RESTART also holds new writers back while it waits for every reader to leave the log. A
    // reader that stays (a backup's snapshot, for minutes) must not stop the writes: it waits
    // briefly, and after a refusal does not try again for a while (the log grows meanwhile).
    db.pragma('busy_timeout = ' + workerData.restartWaitMs);
    try {
      const restarted = db.pragma('wal_checkpoint(RESTART)')[0];
      if (restarted.busy) restartAfter = Date.now() + workerData.restartBackoffMs;
      return restarted;
    } finally {
      db.pragma('busy_timeout = 5000');
    }
  } catch (err) {
    return { error: message(err) };
  }
};
function open() {
  const opened = new Database(workerData.file, { timeout: 5000 });
  opened.pragma('synchronous = NORMAL'); // a checkpoint syncs the log before and the database after
  opened.pragma('wal_autocheckpoint = 0');
  return opened;
}
// After a failure the thread stops checkpointing: the store goes back to SQLite's own.
const timer = setInterval(() => {
  const result = checkpoint();
  if (!result.error) return;
  clearInterval(timer);
  parentPort.postMessage({ type: 'error', error: result.error });
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m.type === 'now') parentPort.postMessage({ type: 'result', id: m.id, result: checkpoint() });
  if (m.type === 'close') {
    clearInterval(timer);
    if (db) db.close();
    parentPort.close();
  }
});
`;

/**
 * Copies the write-ahead log into the database file on a worker thread. SQLite's automatic
 * checkpoint runs inside whichever commit crosses 1,000 log pages, on the event loop, and syncs the
 * log and then the database file there: tens of milliseconds on a busy disk, every second or two at
 * 500 orders/s, and each one stalled every request in flight. The store's own connections therefore
 * run with `wal_autocheckpoint = 0`, and this thread checkpoints (PASSIVE: it never blocks writers
 * or readers) every `intervalMs` on its own connection to the same file, and restarts the log once
 * it passes `restartFrames`. A log that stays the same size is also cheaper to sync: a sync of a
 * file that grew has to commit its new size too.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (result: CheckpointResult) => void>();
  private nextId = 0;
  private readonly exited: Promise<void>;

  /** `restartFrames`: log size (in frames of one page) past which a checkpoint also restarts the log. */
  constructor(file: string, options: { intervalMs?: number; restartFrames?: number; onError: (err: Error) => void }) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const workerData = {
      file,
      driver,
      intervalMs: options.intervalMs ?? 200,
      restartFrames: options.restartFrames ?? DEFAULT_RESTART_FRAMES,
      restartWaitMs: RESTART_WAIT_MS,
      restartBackoffMs: RESTART_BACKOFF_MS,
    };
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
    this.worker.unref(); // never what keeps a process alive
    this.worker.on(
      'message',
      (m: { type: string; id?: number; result?: CheckpointResult & { error?: string }; error?: string }) => {
        if (m.type === 'error') options.onError(new Error(`WAL checkpoint failed: ${m.error}`));
        if (m.type === 'result' && m.id !== undefined) {
          this.waiting.get(m.id)?.(m.result!);
          this.waiting.delete(m.id);
        }
      },
    );
    // Errors thrown inside the worker arrive as plain objects (their class does not cross threads).
    this.worker.on('error', (err: unknown) =>
      options.onError(err instanceof Error ? err : new Error(`WAL checkpointer stopped: ${JSON.stringify(err)}`)),
    );
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /** A checkpoint now, on the worker (tests; the timer does the regular ones). */
  checkpointNow(): Promise<CheckpointResult> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ type: 'now', id });
    });
  }

  async close(): Promise<void> {
    this.worker.ref(); // so a process with nothing else to do still waits for the worker to end
    this.worker.postMessage({ type: 'close' });
    await this.exited;
  }
}

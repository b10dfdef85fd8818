import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EventFilter } from '../ports/event-filter.js';
import type { DocumentRow, ReadModelStore } from '../ports/read-model-store.js';
import type { ProjectedEvent } from '../../projections/projection.js';

/**
 * A catch-up shared with a second thread (embedded only). A rebuild is CPU-bound (read, parse,
 * fold through the order machine, serialise) and the service otherwise uses one core, so the log
 * is split in two by stream part (streamPart in ports/event-store.ts): a worker thread reads 5 of
 * the 8 parts from its own read-only connection and projects them, this thread reads and projects
 * the other 3, and writes the worker's documents (sent as JSON) into the store before its own
 * runners move past each page. The service's read models key their documents by stream key
 * (test/unit/catch-up-shares.test.ts holds each of them to it), so all the events of a document
 * fall in one part: same documents, same positions as one thread would give. A read model marked
 * `documentsSpanStreams` is not split: the worker forwards the events of its part that such a
 * read model takes, and this thread projects them in log order with its own.
 */

/** What the worker is asked: project its part (`filter`) of `file`, from the start up to `head`, in pages. */
export interface CatchUpRequest {
  file: string;
  head: bigint;
  pageSize: number;
  projections: string[];
  /**
   * Read models this split must not divide (`documentsSpanStreams`): the main thread projects them
   * over the whole log, and the worker sends it the events of its part they take.
   */
  forward: string[];
  filter: EventFilter;
}

/** One page done by the worker: its documents that changed in it, by collection, and the events it forwards. */
export interface CatchUpBatch {
  through: bigint;
  documents: Array<{ collection: string; rows: DocumentRow[] }>;
  events: ProjectedEvent[];
}

/** The worker stays at most this many pages ahead, so its batches never pile up in memory. */
export const MAX_BATCHES_AHEAD = 4;

const PARTS = 8;
/** The worker takes more than half: the main thread also writes every document into the store. */
const WORKER_PARTS = 5;

/**
 * The worker's and this thread's parts of the log: the streams the read models read (`prefixes`,
 * every prefix of every one of them), split by the part of their key.
 */
export function catchUpShares(prefixes: readonly string[]): { worker: EventFilter; main: EventFilter } {
  const parts = [...Array(PARTS).keys()];
  const share = (of: number[]): EventFilter => ({
    streamPrefixes: [...prefixes],
    partition: { count: PARTS, parts: of },
  });
  return { worker: share(parts.slice(0, WORKER_PARTS)), main: share(parts.slice(WORKER_PARTS)) };
}

/** Built next to this file; absent when running from the TypeScript sources (tests), then no worker. */
const SCRIPT = new URL('../composition/catch-up-worker.js', import.meta.url);

export class CatchUpWorker {
  private readonly worker: Worker;
  private readonly batches: CatchUpBatch[] = [];
  private waiting: { resolve: () => void; reject: (err: Error) => void } | undefined;
  private failure: Error | undefined;
  private through = 0n;
  /** Forwarded events past what the main thread has asked for so far. */
  private ahead: ProjectedEvent[] = [];

  /** Null when the worker script is not built. */
  static start(request: Omit<CatchUpRequest, 'filter'> & { prefixes: readonly string[] }): CatchUpWorker | null {
    if (!fs.existsSync(fileURLToPath(SCRIPT))) return null;
    const { prefixes, ...rest } = request;
    const { worker, main } = catchUpShares(prefixes);
    return new CatchUpWorker({ ...rest, filter: worker }, main);
  }

  /** `share`: this thread's part of the log, to read while the worker reads the rest. */
  private constructor(
    request: CatchUpRequest,
    readonly share: EventFilter,
  ) {
    // Its live data is a page and 5,000 recent documents (about 20 MB); without a bound, V8 sizes the
    // heap from the machine's memory and lets garbage pile up (over 100 MB more resident at a
    // rebuild). Running out of it is a worker failure: the main thread goes on alone.
    this.worker = new Worker(SCRIPT, { workerData: request, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    this.worker.on('message', (batch: CatchUpBatch) => {
      this.batches.push(batch);
      this.wake();
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) =>
      this.fail(new Error(`catch-up worker exited (code ${code}) before reaching the page`)),
    );
  }

  /**
   * Writes the worker's documents into `store` until they cover everything up to `position`, and
   * returns the events it forwarded up to there, in log order (later ones wait for a later call).
   */
  async importThrough(position: bigint, store: ReadModelStore): Promise<ProjectedEvent[]> {
    while (this.through < position) {
      if (this.batches.length === 0) {
        if (this.failure) throw this.failure;
        await new Promise<void>((resolve, reject) => (this.waiting = { resolve, reject }));
      }
      const batch = this.batches.shift()!;
      for (const { collection, rows } of batch.documents) store.importRows!(collection, rows);
      this.ahead.push(...batch.events);
      this.through = batch.through;
      this.worker.postMessage('next');
    }
    const upTo = this.ahead.filter((e) => e.position <= position);
    this.ahead = this.ahead.filter((e) => e.position > position);
    return upTo;
  }

  async close(): Promise<void> {
    this.failure ??= new Error('catch-up worker closed');
    await this.worker.terminate();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (this.failure && this.batches.length === 0) waiting?.reject(this.failure);
    else waiting?.resolve();
  }

  /** Batches already received stay usable; a wait for more fails. */
  private fail(err: Error): void {
    this.failure ??= err;
    this.wake();
  }
}

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DocumentRow, ReadModelStore } from '../ports/read-model-store.js';

/**
 * A catch-up shared with a second thread (embedded only). A rebuild is CPU-bound (parse, fold
 * through the order machine, serialise) and the service otherwise uses one core, so a worker
 * thread reads the same log from its own read-only connection and projects the documents that
 * `workerOwns` (about 5/8); this thread projects the others, and writes the worker's documents (sent as JSON)
 * into the store before its own runners move past each page. Same documents, same positions: the
 * worker only takes over part of the arithmetic.
 */

/** What the worker is asked: project from the start of `file` up to `head`, in pages. */
export interface CatchUpRequest {
  file: string;
  head: bigint;
  pageSize: number;
  projections: string[];
}

/** One page done by the worker: its documents that changed in it, by collection. */
export interface CatchUpBatch {
  through: bigint;
  documents: Array<{ collection: string; rows: DocumentRow[] }>;
}

/** The worker stays at most this many pages ahead, so its batches never pile up in memory. */
export const MAX_BATCHES_AHEAD = 4;

/**
 * A document is the worker's when its id hashes (FNV-1a) into the worker's eighths, the same in both
 * threads. The worker takes more than half: the main thread also writes every document into the store.
 */
const WORKER_EIGHTHS = 5;
export function workerOwns(id: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h & 7) < WORKER_EIGHTHS;
}

/** Built next to this file; absent when running from the TypeScript sources (tests), then no worker. */
const SCRIPT = new URL('../composition/catch-up-worker.js', import.meta.url);

export class CatchUpWorker {
  private readonly worker: Worker;
  private readonly batches: CatchUpBatch[] = [];
  private waiting: { resolve: () => void; reject: (err: Error) => void } | undefined;
  private failure: Error | undefined;
  private through = 0n;

  /** Null when the worker script is not built. */
  static start(request: CatchUpRequest): CatchUpWorker | null {
    return fs.existsSync(fileURLToPath(SCRIPT)) ? new CatchUpWorker(request) : null;
  }

  private constructor(request: CatchUpRequest) {
    // Its live data is a page and 5,000 recent documents (about 20 MB); without a bound, V8 sizes the
    // heap from the machine's memory and lets garbage pile up (over 100 MB more resident at a
    // rebuild). Running out of it is a worker failure: the main thread goes on alone.
    this.worker = new Worker(SCRIPT, { workerData: request, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    this.worker.on('message', (batch: CatchUpBatch) => {
      this.batches.push(batch);
      this.wake();
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`catch-up worker exited (code ${code}) before reaching the page`)));
  }

  /** A document of this thread's share (the worker writes the others). */
  readonly keep = (id: string): boolean => !workerOwns(id);

  /** Writes the worker's documents into `store` until they cover everything up to `position`. */
  async importThrough(position: bigint, store: ReadModelStore): Promise<void> {
    while (this.through < position) {
      if (this.batches.length === 0) {
        if (this.failure) throw this.failure;
        await new Promise<void>((resolve, reject) => (this.waiting = { resolve, reject }));
      }
      const batch = this.batches.shift()!;
      for (const { collection, rows } of batch.documents) store.importRows!(collection, rows);
      this.through = batch.through;
      this.worker.postMessage('next');
    }
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

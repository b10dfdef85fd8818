import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { verifyReadModels, type AuditReport, type ServedReadModels } from '../application/audit/verify.js';
import type { EventStore, ReadAllOptions, RecordedEvent } from '../ports/event-store.js';
import { projectedEvent } from '../../projections/projection.js';
import { extend } from '../shared/objects.js';

/** What the audit worker is started with. */
export interface AuditWorkerData {
  source: string;
  waitMs: number;
  /** ISO time: read models with a retention are compared as of then. */
  now: string;
}
export type AuditCall = { kind: 'call'; id: number } & (
  | { method: 'headPosition' | 'positions'; arg?: undefined }
  | { method: 'readAll'; arg: ReadAllOptions | undefined }
  | { method: 'documents'; arg: { collection: string; afterId: string | null; limit: number } }
);
export type AuditWorkerMessage = AuditCall | { kind: 'done'; report: AuditReport } | { kind: 'failed'; error: string };
export type AuditReply = { id: number; result?: unknown; error?: string };

/** The audit worker's default heap: the replay holds every read model of the whole log in memory. */
export const AUDIT_WORKER_MEMORY_MB = 1024;

/** The audit was stopped (service shutdown) before its result. */
export class AuditCancelledError extends Error {
  constructor() {
    super('The audit was cancelled.');
    this.name = 'AuditCancelledError';
  }
}

/** Built next to this file; absent when running from the TypeScript sources (tests), then no worker. */
const SCRIPT = new URL('./audit-worker.js', import.meta.url);

export interface AuditRunnerDeps {
  events: Pick<EventStore, 'headPosition' | 'readAll'>;
  served: ServedReadModels;
  waitMs: number;
  now: () => Date;
  /** Heap limit of the worker's old generation; default AUDIT_WORKER_MEMORY_MB. */
  maxMemoryMb?: number;
}

export interface AuditRunner {
  run: () => Promise<AuditReport>;
  /** Stops the running audit, if any (its `run` rejects with AuditCancelledError); resolves once its worker is gone. */
  cancel: () => Promise<void>;
  /** Whether an audit's worker thread is running now. */
  readonly active: boolean;
  inWorker: boolean;
}

/**
 * `audit verify` for a running service. The replay and the comparison run in a worker thread with
 * its own heap limit, so a log too large for it ends the worker with an error the operator sees,
 * never the service; this thread only answers the worker's reads, a page at a time (of events, or
 * of one read model's documents), and never holds a whole read model. From the TypeScript sources
 * (no built worker script) it runs in this thread.
 */
export function auditRunner(deps: AuditRunnerDeps): AuditRunner {
  if (!fs.existsSync(fileURLToPath(SCRIPT)))
    return {
      inWorker: false,
      run: () => verifyReadModels(deps.events, deps.served, { waitMs: deps.waitMs, now: deps.now() }),
      cancel: async () => {},
      active: false,
    };
  let current: { worker: Worker; cancel: () => Promise<void> } | undefined;
  return {
    inWorker: true,
    run: () => {
      const started = startWorker(deps);
      current = started;
      started.worker.once('exit', () => {
        if (current === started) current = undefined;
      });
      return started.result;
    },
    cancel: async () => {
      await current?.cancel();
    },
    get active() {
      return current !== undefined;
    },
  };
}
/** A recorded event as a plain object, as a message to the worker carries it. */
const plain = (e: RecordedEvent): RecordedEvent => extend(projectedEvent(e), { recordedAt: e.recordedAt });

function startWorker(deps: AuditRunnerDeps): {
  worker: Worker;
  result: Promise<AuditReport>;
  cancel: () => Promise<void>;
} {
  const memoryMb = deps.maxMemoryMb ?? AUDIT_WORKER_MEMORY_MB;
  const workerData: AuditWorkerData = {
    source: deps.served.source,
    waitMs: deps.waitMs,
    now: deps.now().toISOString(),
  };
  const worker = new Worker(SCRIPT, { workerData, resourceLimits: { maxOldGenerationSizeMb: memoryMb } });
  let settled = false;
  let end: { resolve: (r: AuditReport) => void; reject: (err: Error) => void };
  const result = new Promise<AuditReport>((resolve, reject) => (end = { resolve, reject }));
  // Settles the result once, and terminates the worker; `gone` resolves once the worker has exited.
  let gone: Promise<void> = Promise.resolve();
  const finish = (outcome: { report: AuditReport } | { error: Error }): void => {
    gone = worker.terminate().then(
      () => undefined,
      () => undefined,
    );
    if (settled) return;
    settled = true;
    if ('report' in outcome) end.resolve(outcome.report);
    else end.reject(outcome.error);
  };
  const post = (reply: AuditReply) => {
    if (settled) return;
    try {
      worker.postMessage(reply);
    } catch (err) {
      finish({ error: new Error(`The audit could not reply to its worker: ${message(err)}`) });
    }
  };
  const answer = async (m: AuditCall): Promise<unknown> => {
    switch (m.method) {
      case 'headPosition':
        return deps.events.headPosition();
      case 'readAll':
        return (await deps.events.readAll(m.arg)).map(plain);
      case 'positions':
        return deps.served.positions();
      case 'documents':
        return deps.served.documents(m.arg.collection, m.arg.afterId, m.arg.limit);
    }
  };
  worker.on('message', (m: AuditWorkerMessage) => {
    if (m.kind === 'done') return finish({ report: m.report });
    if (m.kind === 'failed') return finish({ error: new Error(m.error) });
    answer(m).then(
      (result) => post({ id: m.id, result }),
      (err: unknown) => post({ id: m.id, error: message(err) }),
    );
  });
  worker.on('messageerror', (err: Error) =>
    finish({ error: new Error(`The audit worker sent a message that could not be read: ${err.message}`) }),
  );
  worker.on('error', (err: Error & { code?: string }) =>
    finish({
      error:
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new Error(
              `The audit ran out of its ${memoryMb} MB of memory and was stopped; the service was not affected. ` +
                'Run `npm run cli -- audit verify` on a machine with more memory.',
            )
          : err,
    }),
  );
  worker.on('exit', (code) =>
    finish({ error: new Error(`The audit worker stopped (exit code ${code}) before its result.`) }),
  );
  return {
    worker,
    result,
    cancel: async () => {
      finish({ error: new AuditCancelledError() });
      await gone;
    },
  };
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

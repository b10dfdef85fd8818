import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { verifyReadModels, type AuditReport, type ServedReadModels } from '../application/audit/verify.js';
import type { EventStore, ReadAllOptions, RecordedEvent } from '../ports/event-store.js';

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
  | { method: 'documents'; arg: string }
);
export type AuditWorkerMessage = AuditCall | { kind: 'done'; report: AuditReport } | { kind: 'failed'; error: string };
export type AuditReply = { id: number; result?: unknown; error?: string };

/** The audit worker's heap: the replay holds every read model of the whole log in memory. */
export const AUDIT_WORKER_MEMORY_MB = 1024;

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

/**
 * `audit verify` for a running service. The replay runs in a worker thread with its own heap limit,
 * so a log too large for it ends the worker with an error the operator sees, never the service;
 * this thread only answers the worker's reads (a page of events, or one served read model, at a
 * time). From the TypeScript sources (no built worker script) it runs in this thread.
 */
export function auditRunner(deps: AuditRunnerDeps): { run: () => Promise<AuditReport>; inWorker: boolean } {
  if (!fs.existsSync(fileURLToPath(SCRIPT)))
    return {
      inWorker: false,
      run: () => verifyReadModels(deps.events, deps.served, { waitMs: deps.waitMs, now: deps.now() }),
    };
  return { inWorker: true, run: () => runInWorker(deps) };
}

/** A recorded event as a plain object (an adapter's may read its data lazily, which a message would not carry). */
const plain = (e: RecordedEvent): RecordedEvent => ({
  id: e.id,
  streamId: e.streamId,
  type: e.type,
  revision: e.revision,
  position: e.position,
  data: e.data,
  metadata: e.metadata,
  recordedAt: e.recordedAt,
});

function runInWorker(deps: AuditRunnerDeps): Promise<AuditReport> {
  const memoryMb = deps.maxMemoryMb ?? AUDIT_WORKER_MEMORY_MB;
  return new Promise<AuditReport>((resolve, reject) => {
    const workerData: AuditWorkerData = {
      source: deps.served.source,
      waitMs: deps.waitMs,
      now: deps.now().toISOString(),
    };
    const worker = new Worker(SCRIPT, { workerData, resourceLimits: { maxOldGenerationSizeMb: memoryMb } });
    let settled = false;
    const finish = (end: () => void) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      end();
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
          return deps.served.documents(m.arg);
      }
    };
    worker.on('message', (m: AuditWorkerMessage) => {
      if (m.kind === 'done') return finish(() => resolve(m.report));
      if (m.kind === 'failed') return finish(() => reject(new Error(m.error)));
      answer(m).then(
        (result) => settled || worker.postMessage({ id: m.id, result } satisfies AuditReply),
        (err: unknown) =>
          settled ||
          worker.postMessage({
            id: m.id,
            error: err instanceof Error ? err.message : String(err),
          } satisfies AuditReply),
      );
    });
    worker.on('error', (err: Error & { code?: string }) =>
      finish(() =>
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new Error(
                `The audit ran out of its ${memoryMb} MB of memory and was stopped; the service was not affected. ` +
                  'Run `npm run cli -- audit verify` on a machine with more memory.',
              )
            : err,
        ),
      ),
    );
    worker.on('exit', (code) =>
      finish(() => reject(new Error(`The audit worker stopped (exit code ${code}) before its result.`))),
    );
  });
}

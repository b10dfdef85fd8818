import { parentPort, workerData } from 'node:worker_threads';
import { verifyReadModels, type ServedReadModels } from '../application/audit/verify.js';
import type { ReadAllOptions, RecordedEvent } from '../ports/event-store.js';
import type { StoredDocument } from '../ports/read-model-store.js';
import type { AuditCall, AuditReply, AuditWorkerData, AuditWorkerMessage } from './audit-runner.js';

/**
 * The worker thread of the console's `audit verify` (audit-runner.ts): the replay of the whole log
 * into fresh read models, the part that grows with the log, lives here, under this thread's own
 * heap limit, and so does the comparison: the main thread, which owns the stores, answers its reads
 * one page at a time (a page of events, or of one read model's served documents), and this thread
 * compares each page of served documents as it comes with the replayed ones it holds.
 */
const request = workerData as AuditWorkerData;
const port = parentPort!;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (err: Error) => void }>();
let nextId = 0;
port.on('message', (m: AuditReply) => {
  const waiting = pending.get(m.id);
  pending.delete(m.id);
  if (m.error !== undefined) waiting?.reject(new Error(m.error));
  else waiting?.resolve(m.result);
});
function call<T>(method: AuditCall['method'], arg?: unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    try {
      port.postMessage({ kind: 'call', id, method, arg });
    } catch (err) {
      pending.delete(id);
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}

const events = {
  headPosition: () => call<bigint>('headPosition'),
  readAll: (options?: ReadAllOptions) => call<RecordedEvent[]>('readAll', options),
};
const served: ServedReadModels = {
  source: request.source,
  positions: () => call<Map<string, bigint>>('positions'),
  documents: (collection, afterId, limit) =>
    call<Array<StoredDocument<unknown>>>('documents', { collection, afterId, limit }),
};
try {
  const report = await verifyReadModels(events, served, { waitMs: request.waitMs, now: new Date(request.now) });
  port.postMessage({ kind: 'done', report } satisfies AuditWorkerMessage);
} catch (err) {
  port.postMessage({
    kind: 'failed',
    error: err instanceof Error ? err.message : String(err),
  } satisfies AuditWorkerMessage);
}

import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { PageReader } from '../adapters/sqlite/event-store-reader.js';
import { SqliteReadModelStore } from '../adapters/sqlite/read-model-store.js';
import { indexedFields } from '../adapters/sqlite/read-model-sql.js';
import { MAX_BATCHES_AHEAD, type CatchUpBatch, type CatchUpRequest } from '../application/catch-up-worker.js';
import { PROJECTIONS } from '../../projections/index.js';
import { applyEvents, documentIds, eventsByDocument, projectedEvent, reads } from '../../projections/projection.js';
import type { DocumentRow, StoredDocument } from '../ports/read-model-store.js';

/**
 * The worker thread of a shared catch-up (src/application/catch-up-worker.ts): reads its part of
 * the log from its own read-only connection, up to the head it was given, and projects its
 * documents, page by page. It keeps them in a private store of its own (a later event of an order may come
 * pages later) and sends each page's changed documents to the main thread, which writes them. No
 * compare-and-set here: during the catch-up this thread alone writes these documents.
 */
const request = workerData as CatchUpRequest;
const port = parentPort!;
const reader = new PageReader(new Database(request.file, { readonly: true, fileMustExist: true }), () => request.head);
// Its documents: the JSON it sends is stored as is, and the recently changed ones stay parsed.
const own = new SqliteReadModelStore();
const recent = new LRUCache<string, StoredDocument<unknown>>({ max: 5_000 });
const projections = PROJECTIONS.filter((p) => request.projections.includes(p.name)).map((p) => ({
  p,
  fields: indexedFields(p.indexes ?? []),
}));

const forward = PROJECTIONS.filter((p) => request.forward.includes(p.name));

let credit = MAX_BATCHES_AHEAD;
let resume: (() => void) | undefined;
port.on('message', () => {
  credit++;
  resume?.();
});

let after = 0n;
for (let reachedHead = false; !reachedHead;) {
  const page = reader.page(after, request.pageSize, request.filter);
  reachedHead = page.reachedHead;
  const batch: CatchUpBatch = {
    through: page.scannedTo,
    documents: [],
    // Plain objects (a recorded event reads its data lazily, which a message would not carry).
    events: page.events
      .filter((e) => forward.some((p) => reads(p, e.streamId) && documentIds(p, e).length > 0))
      .map(projectedEvent),
  };
  for (const { p, fields } of projections) {
    const rows: DocumentRow[] = [];
    for (const [id, events] of eventsByDocument(p, page.events)) {
      const k = `${p.collection}\u0000${id}`;
      const stored = recent.get(k) ?? (await own.get(p.collection, id));
      const next = applyEvents(p, stored, events, id);
      if (!next) continue;
      recent.set(k, next);
      // The indexed fields too, so the main thread need not parse the JSON to fill their columns.
      const doc = next.doc as Record<string, unknown>;
      rows.push([
        next.id,
        next.seq,
        JSON.stringify(next.versions),
        JSON.stringify(doc),
        Object.fromEntries(fields.map((f) => [f, doc[f]])),
      ]);
    }
    if (rows.length === 0) continue;
    own.importRows(p.collection, rows);
    batch.documents.push({ collection: p.collection, rows });
  }
  while (credit === 0) await new Promise<void>((r) => (resume = r));
  credit--;
  port.postMessage(batch);
  after = batch.through;
}
// Nothing more to wait for: let the thread end.
port.unref();

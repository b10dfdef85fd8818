import { setImmediate as yieldToEventLoop, setTimeout as delay } from 'node:timers/promises';
import type { EventStore } from '../../ports/event-store.js';
import type { ReadModelStore, StoredDocument } from '../../ports/read-model-store.js';
import { PROJECTIONS, type AnyProjection } from '../../../projections/index.js';
import { addDifference, DocumentDiff, documentDifference, noDifferences, type Difference } from './diff.js';
import { Replay } from './replay.js';
import type { ReadModels } from '../read-models.js';

/** The read models a running service serves: straight from its store, or through its internal API. */
export interface ServedReadModels {
  /** Where they are read from, for the report. */
  readonly source: string;
  /** Log position each projection (by name) has applied; absent when the service does not know it. */
  positions(): Promise<Map<string, bigint>>;
  /** A page of a collection's served documents in id order, after `afterId` (null: from the start). */
  documents(collection: string, afterId: string | null, limit: number): Promise<Array<StoredDocument<unknown>>>;
}

/** Served documents read per page: the whole of a read model is never read at once. */
export const AUDIT_PAGE_SIZE = 1000;

/** Served read models kept in a store (MongoDB): positions are the stored checkpoints. */
export function servedFromStore(
  store: ReadModelStore,
  source: string,
  projections: readonly AnyProjection[] = PROJECTIONS,
): ServedReadModels {
  return {
    source,
    positions: async () =>
      new Map(await Promise.all(projections.map(async (p) => [p.name, await store.checkpoint(p.name)] as const))),
    documents: (collection, afterId, limit) => store.pageById(collection, afterId, limit),
  };
}

/** The read models this process serves: positions are what its runners have applied. */
export function servedByReadModels(readModels: ReadModels, source: string): ServedReadModels {
  return {
    source,
    positions: async () => new Map((await readModels.status()).map((s) => [s.name, BigInt(s.position)])),
    documents: (collection, afterId, limit) => readModels.store.pageById(collection, afterId, limit),
  };
}

export interface ReadModelSummary {
  projection: string;
  collection: string;
  replayed: number;
  served: number;
  servedPosition: bigint | null;
  /** Documents of this read model that differ. */
  differences: number;
}

export interface AuditReport {
  source: string;
  /** The log position the replay and the comparison cover. */
  head: bigint;
  readModels: ReadModelSummary[];
  /** How many documents differ, in all. */
  differenceCount: number;
  /** The first `MAX_DIFFERENCES` (diff.ts) of them. */
  differences: Difference[];
  /** Projections the service had not applied up to `head` when compared (their differences may be lag). */
  behind: string[];
}

export interface AuditOptions {
  projections?: readonly AnyProjection[];
  /** How long to wait for the service to apply everything up to the head; default 10 s. */
  waitMs?: number;
  pollMs?: number;
  /** Comparisons to try while the log keeps moving under a live service; default 3. */
  rounds?: number;
  /** Now, for read models with a retention: only documents they still keep are compared. Default: the system clock. */
  now?: Date;
  /** Served documents read per page; default AUDIT_PAGE_SIZE. */
  pageSize?: number;
}

/**
 * Replays the whole log into fresh read models and compares them with the served ones. The service
 * may be writing meanwhile: the replay stops at the head it saw, the comparison waits (bounded) for
 * the service to pass that head, and when documents differ while the log has moved, it replays the
 * new events and compares again, so only differences that stay are reported.
 */
export async function verifyReadModels(
  events: Pick<EventStore, 'headPosition' | 'readAll'>,
  served: ServedReadModels,
  options: AuditOptions = {},
): Promise<AuditReport> {
  const projections = options.projections ?? PROJECTIONS;
  const replay = new Replay(events, projections);
  const rounds = options.rounds ?? 3;
  const pageSize = options.pageSize ?? AUDIT_PAGE_SIZE;
  for (let round = 1; ; round++) {
    const head = await events.headPosition();
    await replay.advanceTo(head);
    const positions = await waitUntilApplied(
      served,
      projections,
      head,
      options.waitMs ?? 10_000,
      options.pollMs ?? 100,
    );
    const readModels: ReadModelSummary[] = [];
    const differences = noDifferences();
    // Served documents that absorbed events past the head (placed or changed since): judged once the
    // replay has caught up with the log, so writes during the audit are not differences.
    const movedOn: Array<{ difference: Difference; served: StoredDocument<unknown> }> = [];
    const defer = (difference: Difference, doc: StoredDocument<unknown>) =>
      replay.isAhead(doc) && movedOn.push({ difference, served: doc }) > 0;
    for (const p of projections) {
      const kept = retained(p, options.now ?? new Date());
      const expected = kept(replay.documents(p.collection));
      const before = differences.count;
      const diff = new DocumentDiff(p.collection, expected, differences, defer);
      let servedCount = 0;
      for (let afterId: string | null = null; ;) {
        const page = await served.documents(p.collection, afterId, pageSize);
        const got = kept(page);
        servedCount += got.length;
        diff.served(got);
        if (page.length < pageSize) break;
        afterId = page[page.length - 1]!.id;
        // Between pages, whatever else this thread serves goes first.
        await yieldToEventLoop();
      }
      diff.finish();
      readModels.push({
        projection: p.name,
        collection: p.collection,
        replayed: expected.length,
        served: servedCount,
        servedPosition: positions.get(p.name) ?? null,
        differences: differences.count - before,
      });
    }
    if (movedOn.length) {
      await replay.advanceTo(await events.headPosition());
      for (const { difference, served: doc } of movedOn) {
        const found = judgedAfterCatchUp(replay, difference, doc);
        if (!found) continue;
        addDifference(differences, found);
        readModels.find((r) => r.collection === found.collection)!.differences++;
      }
    }
    const behind = readModels
      .filter((r) => r.servedPosition === null || r.servedPosition < head)
      .map((r) => r.projection);
    const moved = (await events.headPosition()) !== head;
    if (differences.count === 0 || !moved || round >= rounds)
      return {
        source: served.source,
        head,
        readModels,
        differenceCount: differences.count,
        differences: differences.first,
        behind,
      };
  }
}

async function waitUntilApplied(
  served: ServedReadModels,
  projections: readonly AnyProjection[],
  head: bigint,
  waitMs: number,
  pollMs: number,
): Promise<Map<string, bigint>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const positions = await served.positions();
    const done = projections.every((p) => (positions.get(p.name) ?? -1n) >= head);
    if (done || Date.now() >= deadline) return positions;
    await delay(pollMs);
  }
}

/**
 * The documents a read model still keeps: the replay has every delivery the log ever recorded,
 * the served store has purged those past the retention (or will at its next purge). Both sides are
 * cut at the same instant.
 */
function retained(
  p: AnyProjection,
  now: Date,
): (docs: Array<StoredDocument<unknown>>) => Array<StoredDocument<unknown>> {
  const retention = p.retention;
  if (!retention) return (docs) => docs;
  const cutoff = new Date(now.getTime() - retention.afterMs).toISOString();
  return (docs) => docs.filter((d) => !(String((d.doc as Record<string, unknown>)[retention.field]) < cutoff));
}

/**
 * A served document set aside as ahead of the log, judged once the replay has caught up with it.
 * Still ahead of the whole log, it claims events that were never written; with the log's events it
 * claims and no replayed document, it should not exist; where the replay has reached exactly its
 * events, the two are compared; where it has gone past them (the document moved on again while it
 * was read), nothing can be said of it this time.
 */
function judgedAfterCatchUp(
  replay: Replay,
  difference: Difference,
  doc: StoredDocument<unknown>,
): Difference | undefined {
  if (replay.isAhead(doc)) return difference;
  const want = replay.document(difference.collection, doc.id);
  if (!want) return { ...difference, kind: 'extra', fields: [] };
  return sameVersions(want, doc) ? documentDifference(difference.collection, want, doc) : undefined;
}

/** True when both documents have absorbed exactly the same events. */
function sameVersions(a: StoredDocument<unknown>, b: StoredDocument<unknown>): boolean {
  const streams = Object.keys(a.versions);
  return streams.length === Object.keys(b.versions).length && streams.every((s) => a.versions[s] === b.versions[s]);
}

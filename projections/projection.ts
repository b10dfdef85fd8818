import type { Retention } from '../src/ports/read-model-store.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { StoredDocument } from '../src/ports/read-model-store.js';

export type ProjectedEvent = Pick<
  RecordedEvent,
  'id' | 'streamId' | 'type' | 'revision' | 'position' | 'data' | 'metadata'
>;

/**
 * The fields a projection reads, copied into a plain object: an adapter's event may read its data
 * lazily through accessors, which a message to another thread would not carry.
 */
export const projectedEvent = (e: ProjectedEvent): ProjectedEvent => ({
  id: e.id,
  streamId: e.streamId,
  type: e.type,
  revision: e.revision,
  position: e.position,
  data: e.data,
  metadata: e.metadata,
});

/**
 * A read model: which events it reads, which document each one touches, and a pure fold.
 * Adding a read model is one file exporting one of these, listed in projections/index.ts.
 */
export interface Projection<D> {
  /** Also the name of its checkpoint. */
  name: string;
  collection: string;
  /** Streams it reads, by prefix (e.g. `order-`). */
  streamPrefixes: string[];
  /**
   * Set when a document takes events of streams with different keys (see `streamKey`): a catch-up
   * split by stream part would split such a document, so this read model is never split.
   */
  documentsSpanStreams?: boolean;
  /** Fields its queries filter and sort on (MongoDB indexes). */
  indexes?: Array<Record<string, 1 | -1>>;
  /** How long its documents are kept (the store purges older ones; the audit compares only the rest). */
  retention?: Retention;
  /** The document this event belongs to (or the documents, when it makes several), or null to ignore the event. */
  documentId(e: ProjectedEvent): string | readonly string[] | null;
  /** Pure: the document `id` after the event (null: nothing to record). */
  evolve(doc: D | null, e: ProjectedEvent, id: string): D | null;
  /**
   * Optional, pure: the same as `evolve` over several events of one document, in log order, with
   * the events it recorded (those for which `evolve` would not have returned null); null when none.
   * Lets a read model fold a run of events at once (a catch-up applies pages).
   */
  evolveAll?(doc: D | null, events: readonly ProjectedEvent[]): { doc: D; absorbed: readonly ProjectedEvent[] } | null;
}

export function reads(projection: Projection<unknown>, streamId: string): boolean {
  return projection.streamPrefixes.some((p) => streamId.startsWith(p));
}

/** The documents an event belongs to (none when the projection ignores it). */
export function documentIds<D>(projection: Projection<D>, e: ProjectedEvent): readonly string[] {
  const id = projection.documentId(e);
  return id === null ? [] : typeof id === 'string' ? [id] : id;
}

/** The events of a page each document of the projection receives, in log order (a catch-up applies them together). */
export function eventsByDocument<E extends ProjectedEvent>(
  projection: Projection<unknown>,
  events: readonly E[],
): Map<string, E[]> {
  const byDocument = new Map<string, E[]>();
  for (const e of events) {
    if (!reads(projection, e.streamId)) continue;
    for (const id of documentIds(projection, e)) {
      const list = byDocument.get(id);
      if (list) list.push(e);
      else byDocument.set(id, [e]);
    }
  }
  return byDocument;
}

/**
 * Applies one event to a stored document (`id`, by default the event's first), or returns null when
 * there is nothing to write: the event is older than (or the same as) what the document already
 * absorbed from its stream, so a replayed or late event changes nothing.
 */
export function applyEvent<D>(
  projection: Projection<D>,
  stored: StoredDocument<D> | null,
  e: ProjectedEvent,
  id: string | undefined = documentIds(projection, e)[0],
): StoredDocument<D> | null {
  if (id === undefined) return null;
  const seen = stored?.versions[e.streamId];
  if (seen !== undefined && e.revision <= seen) return null;
  const doc = projection.evolve(stored?.doc ?? null, e, id);
  if (doc === null) return null;
  const versions = versionsFrom(stored);
  versions[e.streamId] = e.revision;
  return { id, seq: (stored?.seq ?? 0) + 1, versions, doc };
}

/** Several events of one document (`id`, by default the first event's), in log order: the same result as applying them one by one. */
export function applyEvents<D>(
  projection: Projection<D>,
  stored: StoredDocument<D> | null,
  events: readonly ProjectedEvent[],
  id: string | undefined = events.map((e) => documentIds(projection, e)[0]).find(Boolean),
): StoredDocument<D> | null {
  if (id === undefined) return null;
  const mine = events.filter((e) => documentIds(projection, e).includes(id));
  const seen = stored?.versions ?? {};
  const fresh = mine.filter((e) => !(seen[e.streamId] !== undefined && e.revision <= seen[e.streamId]!));
  if (fresh.length === 0) return null;
  if (!projection.evolveAll) {
    let doc = stored;
    for (const e of fresh) doc = applyEvent(projection, doc, e, id) ?? doc;
    return doc === stored ? null : doc;
  }
  const result = projection.evolveAll(stored?.doc ?? null, fresh);
  if (!result || result.absorbed.length === 0) return null;
  const versions = versionsFrom(stored);
  for (const e of result.absorbed) versions[e.streamId] = e.revision;
  return { id, seq: (stored?.seq ?? 0) + result.absorbed.length, versions, doc: result.doc };
}

/**
 * A copy of a document's versions to add to, as a dictionary (no prototype): its keys are stream ids,
 * and in an object literal every new key is a new V8 shape hung from the shared empty one, which
 * would then grow a shape per document ever written, searched and added to on every write.
 */
function versionsFrom(stored: StoredDocument<unknown> | null): Record<string, number> {
  return Object.assign(Object.create(null) as Record<string, number>, stored?.versions);
}

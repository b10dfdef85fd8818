import type { Retention } from '../src/ports/read-model-store.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { StoredDocument } from '../src/ports/read-model-store.js';

export type ProjectedEvent = Pick<
  RecordedEvent,
  'id' | 'streamId' | 'type' | 'revision' | 'position' | 'data' | 'metadata'
>;

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
  /** Fields its queries filter and sort on (MongoDB indexes). */
  indexes?: Array<Record<string, 1 | -1>>;
  /** How long its documents are kept (the store purges older ones; the audit compares only the rest). */
  retention?: Retention;
  /** The document this event belongs to, or null to ignore the event. */
  documentId(e: ProjectedEvent): string | null;
  /** Pure: the document after the event (null: nothing to record). */
  evolve(doc: D | null, e: ProjectedEvent): D | null;
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

/** The events of a page each document of the projection receives, in log order (a catch-up applies them together). */
export function eventsByDocument<E extends ProjectedEvent>(
  projection: Projection<unknown>,
  events: readonly E[],
): Map<string, E[]> {
  const byDocument = new Map<string, E[]>();
  for (const e of events) {
    const id = reads(projection, e.streamId) ? projection.documentId(e) : null;
    if (id === null) continue;
    const list = byDocument.get(id);
    if (list) list.push(e);
    else byDocument.set(id, [e]);
  }
  return byDocument;
}

/**
 * Applies one event to a stored document, or returns null when there is nothing to write: the event
 * is older than (or the same as) what the document already absorbed from its stream, so a replayed
 * or late event changes nothing.
 */
export function applyEvent<D>(
  projection: Projection<D>,
  stored: StoredDocument<D> | null,
  e: ProjectedEvent,
): StoredDocument<D> | null {
  const id = projection.documentId(e);
  if (id === null) return null;
  const seen = stored?.versions[e.streamId];
  if (seen !== undefined && e.revision <= seen) return null;
  const doc = projection.evolve(stored?.doc ?? null, e);
  if (doc === null) return null;
  return { id, seq: (stored?.seq ?? 0) + 1, versions: { ...stored?.versions, [e.streamId]: e.revision }, doc };
}

/** Several events of one document, in log order: the same result as applying them one by one. */
export function applyEvents<D>(
  projection: Projection<D>,
  stored: StoredDocument<D> | null,
  events: readonly ProjectedEvent[],
): StoredDocument<D> | null {
  const mine = events.filter((e) => projection.documentId(e) !== null);
  const id = mine.length ? projection.documentId(mine[0]!) : null;
  if (id === null) return null;
  const seen = stored?.versions ?? {};
  const fresh = mine.filter((e) => !(seen[e.streamId] !== undefined && e.revision <= seen[e.streamId]!));
  if (fresh.length === 0) return null;
  if (!projection.evolveAll) {
    let doc = stored;
    for (const e of fresh) doc = applyEvent(projection, doc, e) ?? doc;
    return doc === stored ? null : doc;
  }
  const result = projection.evolveAll(stored?.doc ?? null, fresh);
  if (!result || result.absorbed.length === 0) return null;
  const versions = { ...stored?.versions };
  for (const e of result.absorbed) versions[e.streamId] = e.revision;
  return { id, seq: (stored?.seq ?? 0) + result.absorbed.length, versions, doc: result.doc };
}

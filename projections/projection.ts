import type { RecordedEvent } from '../src/ports/event-store.js';
import type { StoredDocument } from '../src/ports/read-model-store.js';

export type ProjectedEvent = Pick<RecordedEvent, 'id' | 'streamId' | 'type' | 'revision' | 'position' | 'data' | 'metadata'>;

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
  /** The document this event belongs to, or null to ignore the event. */
  documentId(e: ProjectedEvent): string | null;
  /** Pure: the document after the event (null: nothing to record). */
  evolve(doc: D | null, e: ProjectedEvent): D | null;
}

export function reads(projection: Projection<unknown>, streamId: string): boolean {
  return projection.streamPrefixes.some((p) => streamId.startsWith(p));
}

/**
 * Applies one event to a stored document, or returns null when there is nothing to write: the event
 * is older than (or the same as) what the document already absorbed from its stream, so a replayed
 * or late event changes nothing.
 */
export function applyEvent<D>(projection: Projection<D>, stored: StoredDocument<D> | null, e: ProjectedEvent): StoredDocument<D> | null {
  const id = projection.documentId(e);
  if (id === null) return null;
  const seen = stored?.versions[e.streamId];
  if (seen !== undefined && e.revision <= seen) return null;
  const doc = projection.evolve(stored?.doc ?? null, e);
  if (doc === null) return null;
  return { id, seq: (stored?.seq ?? 0) + 1, versions: { ...stored?.versions, [e.streamId]: e.revision }, doc };
}

/** Several events of one document, in log order: the same result as applying them one by one. */
export function applyEvents<D>(projection: Projection<D>, stored: StoredDocument<D> | null, events: readonly ProjectedEvent[]): StoredDocument<D> | null {
  let doc = stored;
  let changed = false;
  for (const e of events) {
    const next = applyEvent(projection, doc, e);
    if (next) {
      doc = next;
      changed = true;
    }
  }
  return changed ? doc : null;
}

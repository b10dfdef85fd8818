import type { EventStore, RecordedEvent } from '../../ports/event-store.js';
import type { StoredDocument } from '../../ports/read-model-store.js';
import { PROJECTIONS, type AnyProjection } from '../../../projections/index.js';
import { applyEvent, documentIds, reads } from '../../../projections/projection.js';

const PAGE = 1000;

/**
 * Fresh read models folded from the log with the projections' own pure functions, in one pass for
 * all of them and without any store: what the served read models must equal. It can be advanced
 * again when the log has grown.
 */
export class Replay {
  private readonly collections = new Map<string, Map<string, StoredDocument<unknown>>>();
  /** The last revision folded of each stream a read model reads. */
  private readonly revisions = new Map<string, number>();
  private reached = 0n;

  constructor(
    private readonly events: Pick<EventStore, 'readAll'>,
    readonly projections: readonly AnyProjection[] = PROJECTIONS,
  ) {
    for (const p of projections) this.collections.set(p.collection, new Map());
  }

  /** Position of the last event folded in. */
  get position(): bigint {
    return this.reached;
  }

  /** Folds every event after the current position up to and including `head`. */
  async advanceTo(head: bigint): Promise<void> {
    while (this.reached < head) {
      const page = await this.events.readAll({ after: this.reached, maxCount: PAGE });
      if (page.length === 0) return;
      for (const e of page) {
        if (e.position > head) return;
        for (const p of this.projections) {
          if (!reads(p, e.streamId)) continue;
          this.revisions.set(e.streamId, e.revision);
          const docs = this.collections.get(p.collection)!;
          for (const id of documentIds(p, e)) {
            const next = project(p, docs.get(id) ?? null, e, id);
            if (next) docs.set(next.id, next);
          }
        }
        this.reached = e.position;
      }
    }
  }

  /**
   * Whether a served document has absorbed an event past what was folded here (its revision of a
   * stream is later, or of a stream not seen yet): it moved on with the log, which no replay up to
   * this head can show.
   */
  isAhead(doc: StoredDocument<unknown>): boolean {
    for (const stream in doc.versions) if (doc.versions[stream]! > (this.revisions.get(stream) ?? -1)) return true;
    return false;
  }

  /** One document of a read model as folded so far. */
  document(collection: string, id: string): StoredDocument<unknown> | undefined {
    return this.collections.get(collection)?.get(id);
  }

  /** Every document of a read model, ordered by id. */
  documents(collection: string): Array<StoredDocument<unknown>> {
    return [...(this.collections.get(collection)?.values() ?? [])].sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
  }
}

/** An event its projection cannot fold is a finding in itself: name it. */
export class UnprojectableEventError extends Error {
  override readonly name = 'UnprojectableEventError';
}

function project(
  p: AnyProjection,
  stored: StoredDocument<unknown> | null,
  e: RecordedEvent,
  id: string,
): StoredDocument<unknown> | null {
  try {
    return applyEvent(p, stored, e, id);
  } catch (err) {
    throw new UnprojectableEventError(
      `${p.name} cannot fold ${e.type} at ${e.streamId}@${e.revision} (position ${e.position}): ${(err as Error).message}`,
    );
  }
}

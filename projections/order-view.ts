import type { OrderEvent } from '../src/domain/order/events.js';
import { evolve, initialState, stateFromView, type OrderView } from '../src/domain/order/state.js';
import type { ProjectedEvent } from './projection.js';

export const orderIdOf = (streamId: string, prefix: string): string | null => (streamId.startsWith(prefix) ? streamId.slice(prefix.length) : null);

/**
 * Every order read model folds the same events through the order machine, and one fold costs tens
 * of microseconds. The fold is a pure function of (previous view, event), so recent results are
 * remembered: a later fold of the same event (same stream, revision, id and equal data) onto the same
 * view object (views are never mutated) gets the same view back without running the machine again.
 * Bounded: when full it is emptied; a miss only costs the fold.
 */
const recent = new Map<string, { previous: OrderView | null; data: Record<string, unknown>; next: OrderView }>();
const RECENT_MAX = 4_096;

/** The order after one more event, folded by the order machine itself (no second copy of its rules). */
export function nextOrderView(view: OrderView | null, e: ProjectedEvent): OrderView {
  const key = `${e.streamId}#${e.revision}#${e.id}`;
  const known = recent.get(key);
  if (known && known.previous === view && sameJson(known.data, e.data)) return known.next;
  const next = evolve(view ? stateFromView(view) : initialState(), { type: e.type, data: e.data } as OrderEvent).order!;
  if (recent.size >= RECENT_MAX) recent.clear();
  recent.set(key, { previous: view, data: e.data, next });
  return next;
}

/** Deep equality of two JSON values (what the log stores), without serialising them. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

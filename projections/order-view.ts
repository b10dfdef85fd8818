import type { OrderEvent } from '../src/domain/order/events.js';
import { evolve, initialState, stateFromView, type OrderView } from '../src/domain/order/state.js';
import type { ProjectedEvent } from './projection.js';

export const orderIdOf = (streamId: string, prefix: string): string | null => (streamId.startsWith(prefix) ? streamId.slice(prefix.length) : null);

/**
 * Every order read model folds the same events through the order machine, and one fold costs tens
 * of microseconds. The fold is a pure function of (previous view, event), so recent results are
 * remembered by the event (stream, revision, id) together with the previous view's identity (views
 * are never mutated): the next read model folding the same event onto the same view gets the same
 * view back without running the machine again. Bounded: when full it is simply emptied, and a miss
 * only costs the fold.
 */
const recent = new Map<string, { previous: OrderView | null; next: OrderView }>();
const RECENT_MAX = 4_096;

/** The order after one more event, folded by the order machine itself (no second copy of its rules). */
export function nextOrderView(view: OrderView | null, e: ProjectedEvent): OrderView {
  const key = `${e.streamId}#${e.revision}#${e.id}`;
  const known = recent.get(key);
  if (known && known.previous === view) return known.next;
  const next = evolve(view ? stateFromView(view) : initialState(), { type: e.type, data: e.data } as OrderEvent).order!;
  if (recent.size >= RECENT_MAX) recent.clear();
  recent.set(key, { previous: view, next });
  return next;
}

import type { OrderEvent } from '../src/domain/order/events.js';
import type { OrderStatus } from '../src/domain/order/machine.js';
import { foldView, type OrderView } from '../src/domain/order/state.js';
import type { ProjectedEvent } from './projection.js';

export const orderIdOf = (streamId: string, prefix: string): string | null => (streamId.startsWith(prefix) ? streamId.slice(prefix.length) : null);

/** The order after some events of its stream, and the status after each of them. */
export interface OrderFold {
  view: OrderView;
  steps: Array<{ status: OrderStatus; at: string }>;
}

/**
 * Both order read models fold the same events onto the same previous view (views are never
 * mutated), and a fold costs tens of microseconds, so the last fold from each starting point is
 * remembered: the second read model gets the first one's result without running the machine
 * again. Keyed weakly by the starting view (by the first event for a new order), so it holds
 * nothing the read models have let go of.
 */
const lastFold = new WeakMap<object, { first: ProjectedEvent; last: ProjectedEvent; count: number; result: OrderFold }>();

/** The order after `events` (its stream's, in order), replayed through the order machine's own transitions (no second copy of its rules). */
export function foldOrderView(view: OrderView | null, events: readonly ProjectedEvent[]): OrderFold {
  const first = events[0]!;
  const last = events[events.length - 1]!;
  const key: object = view ?? first;
  const known = lastFold.get(key);
  if (known && known.first === first && known.last === last && known.count === events.length) return known.result;
  const steps: OrderFold['steps'] = [];
  const folded = foldView(view, events as unknown as OrderEvent[], (status, e) => steps.push({ status, at: e.data.at }));
  const result = { view: folded, steps };
  lastFold.set(key, { first, last, count: events.length, result });
  return result;
}

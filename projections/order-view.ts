import type { OrderEvent } from '../src/domain/order/events.js';
import { evolve, initialState, stateFromView, type OrderView } from '../src/domain/order/state.js';
import type { ProjectedEvent } from './projection.js';

export const orderIdOf = (streamId: string, prefix: string): string | null => (streamId.startsWith(prefix) ? streamId.slice(prefix.length) : null);

/** The order after one more event, folded by the order machine itself (no second copy of its rules). */
export function nextOrderView(view: OrderView | null, e: ProjectedEvent): OrderView {
  const state = view ? stateFromView(view) : initialState();
  return evolve(state, { type: e.type, data: e.data } as OrderEvent).order!;
}

import type { OrderEvent } from '../src/domain/order/events.js';
import type { OrderStatus } from '../src/domain/order/machine.js';
import { foldView, type OrderView } from '../src/domain/order/state.js';
import type { ProjectedEvent } from './projection.js';

/** The id a stream names after `prefix` (`rider-<orderId>`: the order id); null for another stream. */
export const idAfter = (streamId: string, prefix: string): string | null =>
  streamId.startsWith(prefix) ? streamId.slice(prefix.length) : null;

/** The order after some events of its stream, and the status after each of them. */
export interface OrderFold {
  view: OrderView;
  steps: Array<{ status: OrderStatus; at: string }>;
}

/**
 * The order after `events` (its stream's, in order), replayed through the order machine's own
 * transitions (no second copy of its rules); `foldView` steps them through the machine's table, a
 * tenth of the interpreter's cost, because a rebuild replays every order event of the log.
 */
export function foldOrderView(view: OrderView | null, events: readonly ProjectedEvent[]): OrderFold {
  const steps: OrderFold['steps'] = [];
  const folded = foldView(view, events as unknown as OrderEvent[], (status, e) =>
    steps.push({ status, at: e.data.at }),
  );
  return { view: folded, steps };
}

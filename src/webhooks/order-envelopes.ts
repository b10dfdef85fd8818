import type { EventStore } from '../ports/event-store.js';
import { isOrderEventType, orderStream, type OrderEvent, type OrderEventType } from '../domain/order/events.js';
import { foldView, type OrderView } from '../domain/order/state.js';
import { orderEnvelopes, type WebhookEnvelope } from '../domain/webhook/envelope.js';

/** One stored order event and the webhooks it produces. */
export interface OrderEventEnvelopes {
  source: { id: string; type: OrderEventType };
  /** The order right after the event. */
  after: OrderView;
  envelopes: WebhookEnvelope[];
}

/**
 * The webhooks of an order's events at the given revisions, from its stream (read once, up to the
 * highest), each from the order right before and right after its event, replayed through the
 * machine's table as the read models do. The dispatcher builds what it sends with it, and the events
 * API the bodies it does not store: both give the same ids and bodies. A revision the stream does
 * not hold, or that holds no order event, is left out.
 */
export async function envelopesAt(
  events: EventStore,
  orderId: string,
  revisions: readonly number[],
): Promise<Map<number, OrderEventEnvelopes>> {
  const found = new Map<number, OrderEventEnvelopes>();
  const wanted = new Set(revisions);
  if (wanted.size === 0) return found;
  const history = await events.readStream(orderStream(orderId), { maxCount: Math.max(...wanted) + 1 });
  // Stored events, accepted once already: no second check of the machine's rules. The events
  // between two wanted ones are folded in one call (each call resumes the machine from a view).
  let before: OrderView | null = null;
  let pending: OrderEvent[] = [];
  for (const recorded of history) {
    if (!isOrderEventType(recorded.type)) continue;
    const event = { type: recorded.type, data: recorded.data } as OrderEvent;
    if (!wanted.has(recorded.revision)) {
      pending.push(event);
      continue;
    }
    if (pending.length > 0) before = foldView(before, pending);
    pending = [];
    const after = foldView(before, [event]);
    const source = { id: recorded.id, type: recorded.type };
    found.set(recorded.revision, { source, after, envelopes: orderEnvelopes(source, before, after) });
    before = after;
  }
  return found;
}

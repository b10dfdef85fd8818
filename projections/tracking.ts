import type { Rider } from '../src/domain/order/events.js';
import type { OrderView } from '../src/domain/order/state.js';
import { foldOrderView, orderIdOf } from './order-view.js';
import type { ProjectedEvent, Projection } from './projection.js';

export interface TrackingDocument {
  order_id: string;
  partner_id: string;
  environment: 'live' | 'sandbox';
  status: string;
  fulfilment: 'delivery' | 'pickup';
  /** Each public status the order entered, in order of occurrence. */
  timeline: Array<{ status: string; at: string }>;
  rider: Rider | null;
  location: { lat: number; lng: number; updated_at: string } | null;
  /** The order as last seen, so the next event folds through the machine. */
  order: OrderView | null;
}

/** Tracking: status timeline from the order stream, rider position from `rider-<orderId>`. */
export const tracking: Projection<TrackingDocument> = {
  name: 'tracking',
  collection: 'tracking',
  streamPrefixes: ['order-', 'rider-'],
  documentId: (e) => orderIdOf(e.streamId, 'order-') ?? orderIdOf(e.streamId, 'rider-'),
  evolve: (doc, e) => tracking.evolveAll!(doc, [e])?.doc ?? null,
  evolveAll(doc, events) {
    let current = doc;
    const absorbed: ProjectedEvent[] = [];
    // Runs of order events fold together; rider positions apply one at a time, in log order.
    for (let i = 0; i < events.length; ) {
      const e = events[i]!;
      if (e.streamId.startsWith('rider-')) {
        i++;
        // A position for an order this projection has not seen placed is ignored (it cannot be placed later).
        if (!current) continue;
        const { lat, lng, at } = e.data as { lat: number; lng: number; at: string };
        absorbed.push(e);
        if (current.location && current.location.updated_at > at) continue;
        current = { ...current, location: { lat, lng, updated_at: at } };
        continue;
      }
      let end = i + 1;
      while (end < events.length && !events[end]!.streamId.startsWith('rider-')) end++;
      const run = events.slice(i, end);
      current = withOrderEvents(current, run);
      absorbed.push(...run);
      i = end;
    }
    return current && absorbed.length ? { doc: current, absorbed } : null;
  },
};

function withOrderEvents(doc: TrackingDocument | null, run: readonly ProjectedEvent[]): TrackingDocument {
  const { view: order, steps } = foldOrderView(doc?.order ?? null, run);
  const timeline = [...(doc?.timeline ?? [])];
  for (const step of steps) if (timeline[timeline.length - 1]?.status !== step.status) timeline.push(step);
  return {
    order_id: order.order_id,
    partner_id: order.partner_id,
    environment: order.environment,
    status: order.status,
    fulfilment: order.fulfilment,
    timeline,
    rider: order.rider,
    location: doc?.location ?? null,
    order,
  };
}

import type { Rider } from '../src/domain/order/events.js';
import type { OrderView } from '../src/domain/order/state.js';
import { nextOrderView, orderIdOf } from './order-view.js';
import type { Projection } from './projection.js';

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
  evolve(doc, e) {
    if (e.streamId.startsWith('rider-')) {
      // A position for an order this projection has not seen placed is ignored (it cannot be placed later).
      if (!doc) return null;
      const { lat, lng, at } = e.data as { lat: number; lng: number; at: string };
      if (doc.location && doc.location.updated_at > at) return doc;
      return { ...doc, location: { lat, lng, updated_at: at } };
    }
    const order = nextOrderView(doc?.order ?? null, e);
    const timeline = doc?.timeline ?? [];
    const changed = timeline[timeline.length - 1]?.status !== order.status;
    return {
      order_id: order.order_id,
      partner_id: order.partner_id,
      environment: order.environment,
      status: order.status,
      fulfilment: order.fulfilment,
      timeline: changed ? [...timeline, { status: order.status, at: order.updated_at }] : timeline,
      rider: order.rider,
      location: doc?.location ?? null,
      order,
    };
  },
};

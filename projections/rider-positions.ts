import { idAfter } from './order-view.js';
import type { Projection } from './projection.js';

/** The newest position of an order's rider (GET /v1/orders/{id}/tracking shows it with the order). */
export interface RiderPositionDocument {
  order_id: string;
  location: { lat: number; lng: number; updated_at: string };
}

/**
 * Rider positions, from `rider-<orderId>`: frequent, so kept apart from the order's document (a
 * position rewrites this small one, not the order with its indexes). The newest by the time it was
 * taken wins: a position taken before the kept one, recorded late, changes nothing.
 */
export const riderPositions: Projection<RiderPositionDocument> = {
  name: 'rider-positions',
  collection: 'rider_positions',
  streamPrefixes: ['rider-'],
  documentId: (e) => idAfter(e.streamId, 'rider-'),
  evolve(doc, e) {
    const { lat, lng, at } = e.data as { lat: number; lng: number; at: string };
    if (doc && doc.location.updated_at > at) return null;
    return { order_id: idAfter(e.streamId, 'rider-')!, location: { lat, lng, updated_at: at } };
  },
};

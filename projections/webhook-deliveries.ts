import { DELIVERY_STREAM_PREFIX, type DeliveryEvent } from '../src/webhooks/delivery-events.js';
import { evolveDelivery, type DeliveryState } from '../src/webhooks/delivery-state.js';
import type { Projection } from './projection.js';

/**
 * The webhook delivery log: one document per delivery, folded from its `webhook-delivery-` stream
 * by the same function the sender uses. GET /v1/webhooks/deliveries reads it and hides deliveries
 * created more than 30 days ago (the documents stay: the events they come from are never erased).
 */
export const webhookDeliveries: Projection<DeliveryState> = {
  name: 'webhook-deliveries',
  collection: 'webhook_deliveries',
  streamPrefixes: [DELIVERY_STREAM_PREFIX],
  indexes: [
    { partner_id: 1, environment: 1, created_at: -1, _id: -1 },
    { partner_id: 1, environment: 1, status: 1, created_at: -1 },
    { partner_id: 1, environment: 1, order_id: 1, created_at: -1 },
    { partner_id: 1, environment: 1, event_id: 1 },
    { status: 1, created_at: 1 },
  ],
  documentId: (e) => (e.streamId.startsWith(DELIVERY_STREAM_PREFIX) ? e.streamId.slice(DELIVERY_STREAM_PREFIX.length) : null),
  evolve: (doc, e) => evolveDelivery(doc, { type: e.type, data: e.data } as DeliveryEvent),
};

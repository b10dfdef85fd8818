import type { Retention } from '../src/ports/read-model-store.js';
import { DELIVERY_STREAM_PREFIX, type DeliveryEvent } from '../src/domain/webhook/delivery-events.js';
import { evolveDelivery, type DeliveryState } from '../src/domain/webhook/delivery-state.js';
import type { Projection } from './projection.js';

/**
 * Spec "Limits": the delivery log keeps 30 days. The store deletes a delivery 30 days after its
 * `created_at` (a TTL index on MongoDB, `purgeExpired` elsewhere); GET /v1/webhooks/deliveries also
 * hides older ones until then. The events stay: a rebuild brings the documents back until the next purge.
 */
export const DELIVERY_LOG_RETENTION: Retention = { field: 'created_at', afterMs: 30 * 24 * 60 * 60 * 1000 };

/**
 * The webhook delivery log: one document per delivery, folded from its `webhook-delivery-` stream
 * by the same function the sender uses. GET /v1/webhooks/deliveries reads it (newest first, by
 * partner and environment, optionally by status, event type, order or event); the sender's scan of
 * unfinished deliveries reads it by status, oldest first. Each of these lists has an index that ends
 * with `created_at` and `_id`, the list's sort and its tiebreak.
 */
export const webhookDeliveries: Projection<DeliveryState> = {
  name: 'webhook-deliveries',
  collection: 'webhook_deliveries',
  streamPrefixes: [DELIVERY_STREAM_PREFIX],
  retention: DELIVERY_LOG_RETENTION,
  indexes: [
    { partner_id: 1, environment: 1, created_at: -1, _id: -1 },
    { partner_id: 1, environment: 1, status: 1, created_at: -1, _id: -1 },
    { partner_id: 1, environment: 1, event_type: 1, created_at: -1, _id: -1 },
    { partner_id: 1, environment: 1, order_id: 1, created_at: -1, _id: -1 },
    { partner_id: 1, environment: 1, event_id: 1 },
    { status: 1, created_at: 1, _id: 1 },
  ],
  documentId: (e) =>
    e.streamId.startsWith(DELIVERY_STREAM_PREFIX) ? e.streamId.slice(DELIVERY_STREAM_PREFIX.length) : null,
  evolve: (doc, e) => evolveDelivery(doc, { type: e.type, data: e.data } as DeliveryEvent),
};

import { DELIVERY_STREAM_PREFIX, deliveryIdFor, type DeliveryEvent } from '../src/domain/webhook/delivery-events.js';
import {
  EVENT_RECORD_STREAM_PREFIX,
  evolveEventRecord,
  type EventRecord,
  type EventRecordEvent,
  type EventRecordedData,
} from '../src/domain/webhook/event-records.js';
import { DELIVERY_LOG_RETENTION } from './webhook-deliveries.js';
import type { Projection } from './projection.js';

/**
 * The events API's read model (GET /v1/events): one document per webhook event, from its
 * delivery's stream or, when no delivery carries it, from its `webhook-events-` recording (see
 * domain/webhook/event-records.ts). A document's id is the id its delivery has or would have
 * (`deliveryIdFor(event id)`), so both sources, and every later event of the delivery, land on
 * the same document. Kept 30 days after the event's `created`, as the delivery log.
 */
export const webhookEvents: Projection<EventRecord> = {
  name: 'webhook-events',
  collection: 'webhook_events',
  streamPrefixes: [EVENT_RECORD_STREAM_PREFIX, DELIVERY_STREAM_PREFIX],
  retention: { field: 'created', afterMs: DELIVERY_LOG_RETENTION.afterMs },
  indexes: [
    { partner_id: 1, environment: 1, sort_key: -1, _id: -1 },
    { partner_id: 1, environment: 1, type: 1, sort_key: -1, _id: -1 },
    { partner_id: 1, environment: 1, order_id: 1, sort_key: -1, _id: -1 },
    { partner_id: 1, environment: 1, delivery_success: 1, sort_key: -1, _id: -1 },
  ],
  documentId: (e) => {
    if (e.streamId.startsWith(DELIVERY_STREAM_PREFIX)) return e.streamId.slice(DELIVERY_STREAM_PREFIX.length);
    if (e.streamId.startsWith(EVENT_RECORD_STREAM_PREFIX) && e.type === 'WebhookEventRecorded') {
      return deliveryIdFor((e.data as unknown as EventRecordedData).event.id);
    }
    return null;
  },
  evolve: (doc, e) => evolveEventRecord(doc, { type: e.type, data: e.data } as EventRecordEvent | DeliveryEvent),
};

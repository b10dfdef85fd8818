import { DELIVERY_STREAM_PREFIX, deliveryIdFor, type DeliveryEvent } from '../src/domain/webhook/delivery-events.js';
import { ORDER_STREAM_PREFIX, orderIdOf } from '../src/domain/order/events.js';
import { webhookEventId } from '../src/domain/webhook/envelope.js';
import { isEventType } from '../src/domain/webhook/event-types.js';
import { isEnvironment } from '../src/domain/environment.js';
import { evolveEventRecord, type CausedEvent, type EventRecord } from '../src/domain/webhook/event-records.js';
import { DELIVERY_LOG_RETENTION } from './webhook-deliveries.js';
import type { ProjectedEvent, Projection } from './projection.js';

/**
 * The events API's read model (GET /v1/events): one document per webhook event, from the order
 * event that caused it (its metadata's `webhook_types`, see domain/webhook/event-records.ts) and,
 * once sent, from its delivery's stream. A document's id is the id its delivery has or would have
 * (`deliveryIdFor(event id)`), so both sources land on the same document. Kept 30 days after the
 * event's `created`, as the delivery log.
 */
export const webhookEvents: Projection<EventRecord> = {
  name: 'webhook-events',
  collection: 'webhook_events',
  streamPrefixes: [ORDER_STREAM_PREFIX, DELIVERY_STREAM_PREFIX],
  // An order's stream and its deliveries' streams have different keys.
  documentsSpanStreams: true,
  retention: { field: 'created', afterMs: DELIVERY_LOG_RETENTION.afterMs },
  indexes: [
    { partner_id: 1, environment: 1, sort_key: -1, _id: -1 },
    { partner_id: 1, environment: 1, type: 1, sort_key: -1, _id: -1 },
    { partner_id: 1, environment: 1, order_id: 1, sort_key: -1, _id: -1 },
    { partner_id: 1, environment: 1, delivery_success: 1, sort_key: -1, _id: -1 },
  ],
  documentId: (e) => {
    if (e.streamId.startsWith(DELIVERY_STREAM_PREFIX)) return e.streamId.slice(DELIVERY_STREAM_PREFIX.length);
    return causedBy(e).map((c) => deliveryIdFor(c.data.event.id));
  },
  evolve: (doc, e, id) => {
    if (e.streamId.startsWith(DELIVERY_STREAM_PREFIX))
      return evolveEventRecord(doc, { type: e.type, data: e.data } as DeliveryEvent);
    const caused = causedBy(e).find((c) => deliveryIdFor(c.data.event.id) === id);
    return caused ? evolveEventRecord(doc, caused) : null;
  },
};

/** Per event object: its document ids and its evolve both need them, and each id is a hash. */
const causedCache = new WeakMap<ProjectedEvent, CausedEvent[]>();

/** The webhook events an order event caused, as its metadata names them (none for an event written without). */
function causedBy(e: ProjectedEvent): CausedEvent[] {
  let caused = causedCache.get(e);
  if (!caused) causedCache.set(e, (caused = readCaused(e)));
  return caused;
}

function readCaused(e: ProjectedEvent): CausedEvent[] {
  const orderId = orderIdOf(e.streamId);
  const { partner_id: partnerId, environment, webhook_types: types } = e.metadata;
  const created = e.data.at;
  if (orderId === null || typeof partnerId !== 'string' || !isEnvironment(environment)) return [];
  if (typeof created !== 'string' || !Array.isArray(types)) return [];
  return types.flatMap((type: unknown, index): CausedEvent[] =>
    typeof type === 'string' && isEventType(type)
      ? [
          {
            type: 'WebhookEventCaused',
            data: {
              partner_id: partnerId,
              environment,
              order_id: orderId,
              order_revision: e.revision,
              type_index: index,
              event: { id: webhookEventId(e.id, type), type, created },
            },
          },
        ]
      : [],
  );
}

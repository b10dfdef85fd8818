import type { Environment } from '../environment.js';
import type { DeliveryEvent } from './delivery-events.js';
import type { DeliveryStatus } from './delivery-state.js';
import type { WebhookEnvelope } from './envelope.js';
import type { EventType } from './event-types.js';

/**
 * The events API (GET /v1/events) lists every webhook event the service created, sent or not. An
 * event is stored once: in its delivery's stream (WebhookDeliveryScheduled carries the envelope)
 * when the partner's endpoint takes it, otherwise in `webhook-events-<source event id>` (no endpoint
 * registered, or a type its `enabled_events` leaves out), one WebhookEventRecorded per envelope.
 */
export const EVENT_RECORD_STREAM_PREFIX = 'webhook-events-';
export const eventRecordStream = (sourceEventId: string): string => `${EVENT_RECORD_STREAM_PREFIX}${sourceEventId}`;

export interface EventRecordedData {
  partner_id: string;
  environment: Environment;
  order_id: string | null;
  order_revision: number | null;
  type_index: number;
  event: WebhookEnvelope;
}

export type EventRecordEvent = { type: 'WebhookEventRecorded'; data: EventRecordedData };

/** One event as the events API shows it, with what its delivery (if any) did last. */
export interface EventRecord {
  /** The envelope's `evt_` id. */
  event_id: string;
  partner_id: string;
  environment: Environment;
  type: EventType;
  order_id: string | null;
  order_revision: number | null;
  type_index: number;
  /** The envelope's `created` (also the retention field). */
  created: string;
  /**
   * The list's order: `created`, then the source event's revision and the type's index, so events of
   * one order made at the same instant keep the order they happened in (see `eventSortKey`).
   */
  sort_key: string;
  event: WebhookEnvelope;
  /** The delivery's id once the event went to an endpoint; null when it was only recorded. */
  delivery_id: string | null;
  delivery_status: DeliveryStatus | null;
  /** Whether the latest attempt (scheduled or redelivery) succeeded; null before any attempt. */
  delivery_success: boolean | null;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * `<created>|<revision>|<type index>`, zero-padded so that text order is time order and then event
 * order. A bound on `created` is a bound on this key: `<t>` sorts before every key of instant `t`,
 * `<t>|~` after every one of them.
 */
export function eventSortKey(created: string, orderRevision: number | null, typeIndex: number): string {
  return `${created}|${pad(orderRevision ?? 0, 10)}|${pad(typeIndex, 3)}`;
}

/** The key bound that comes after every event created at `created`. */
export const afterInstant = (created: string): string => `${created}|~`;

function fromEnvelope(
  d: Omit<EventRecordedData, 'event'> & { event: WebhookEnvelope },
  delivery: string | null,
): EventRecord {
  return {
    event_id: d.event.id,
    partner_id: d.partner_id,
    environment: d.environment,
    type: d.event.type,
    order_id: d.order_id,
    order_revision: d.order_revision,
    type_index: d.type_index,
    created: d.event.created,
    sort_key: eventSortKey(d.event.created, d.order_revision, d.type_index),
    event: d.event,
    delivery_id: delivery,
    delivery_status: delivery ? 'pending' : null,
    delivery_success: null,
  };
}

/**
 * Pure: the event record after one event of its recording or its delivery stream; null when the
 * event changes nothing the events API shows.
 */
export function evolveEventRecord(doc: EventRecord | null, e: EventRecordEvent | DeliveryEvent): EventRecord | null {
  switch (e.type) {
    case 'WebhookEventRecorded':
      return doc ?? fromEnvelope(e.data, null);
    case 'WebhookDeliveryScheduled': {
      const scheduled = fromEnvelope(e.data, e.data.delivery_id);
      return doc ? { ...doc, delivery_id: scheduled.delivery_id, delivery_status: 'pending' } : scheduled;
    }
    case 'WebhookAttemptSucceeded':
      return doc && { ...doc, delivery_status: 'succeeded', delivery_success: true };
    case 'WebhookAttemptFailed': {
      if (!doc) return null;
      const retrying = e.data.trigger === 'schedule' && e.data.next_attempt_at !== null;
      return { ...doc, delivery_status: retrying ? 'retrying' : doc.delivery_status, delivery_success: false };
    }
    case 'WebhookDeliveryFailed':
      return doc && { ...doc, delivery_status: 'failed', delivery_success: false };
    default:
      return null;
  }
}

import type { Environment } from '../environment.js';
import type { DeliveryEvent } from './delivery-events.js';
import type { DeliveryStatus } from './delivery-state.js';
import type { WebhookEnvelope } from './envelope.js';
import type { EventType } from './event-types.js';
import { update } from '../../shared/objects.js';

/**
 * The events API (GET /v1/events) lists every webhook event the service created, sent or not. Each
 * order event names the webhook types it causes in its metadata (`webhook_types`), which is what
 * the list filters and sorts on; the body is the order's, rebuilt from its stream when read
 * (src/webhooks/order-envelopes.ts), so the log holds each order once per change. When the
 * partner's endpoint takes the event, its delivery's stream carries the envelope as sent
 * (WebhookDeliveryScheduled) and what became of it.
 */
export interface CausedEventData {
  partner_id: string;
  environment: Environment;
  order_id: string;
  order_revision: number;
  /** Its place among the webhooks of its order event. */
  type_index: number;
  event: Pick<WebhookEnvelope, 'id' | 'type' | 'created'>;
}

/** A webhook event an order event caused, as its metadata names it. */
export type CausedEvent = { type: 'WebhookEventCaused'; data: CausedEventData };

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
  /** The envelope as sent; null for an event no delivery carries (rebuilt from the order when read). */
  event: WebhookEnvelope | null;
  /** The delivery's id once the event went to an endpoint; null when none took it. */
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

/** What a record starts from: an order event's webhook, or a scheduled delivery (a test event has no order). */
type RecordSource = Omit<CausedEventData, 'order_id' | 'order_revision'> & {
  order_id: string | null;
  order_revision: number | null;
};

function fromEnvelope(d: RecordSource, envelope: WebhookEnvelope | null, delivery: string | null): EventRecord {
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
    event: envelope,
    delivery_id: delivery,
    delivery_status: delivery ? 'pending' : null,
    delivery_success: null,
  };
}

/**
 * Pure: the event record after the order event that caused it or an event of its delivery's
 * stream; null when the event changes nothing the events API shows.
 */
export function evolveEventRecord(doc: EventRecord | null, e: CausedEvent | DeliveryEvent): EventRecord | null {
  switch (e.type) {
    case 'WebhookEventCaused':
      return doc ?? fromEnvelope(e.data, null, null);
    case 'WebhookDeliveryScheduled': {
      const scheduled = fromEnvelope(e.data, e.data.event, e.data.delivery_id);
      return doc
        ? update(doc, {
            event: scheduled.event,
            delivery_id: scheduled.delivery_id,
            delivery_status: 'pending',
          })
        : scheduled;
    }
    case 'WebhookAttemptSucceeded':
      return doc && update(doc, { delivery_status: 'succeeded', delivery_success: true });
    case 'WebhookAttemptFailed': {
      if (!doc) return null;
      const retrying = e.data.trigger === 'schedule' && e.data.next_attempt_at !== null;
      return update(doc, {
        delivery_status: retrying ? 'retrying' : doc.delivery_status,
        delivery_success: false,
      });
    }
    case 'WebhookDeliveryFailed':
      return doc && update(doc, { delivery_status: 'failed', delivery_success: false });
    default:
      return null;
  }
}

import { sha256Hex } from '../../shared/ids.js';
import type { Environment } from '../environment.js';
import type { EventType } from './event-types.js';
import type { WebhookEnvelope } from './envelope.js';

/**
 * The facts of one webhook delivery, stored in its own stream `webhook-delivery-<deliveryId>`:
 * the delivery log is their projection, and the retry schedule lives in them (each failed attempt
 * carries when the next one is due), so a restart resumes from the log. No secret, header or
 * signature is ever in them: only what was sent (the envelope) and what happened.
 */

export const DELIVERY_STREAM_PREFIX = 'webhook-delivery-';
export const deliveryStream = (deliveryId: string): string => `${DELIVERY_STREAM_PREFIX}${deliveryId}`;

/** One delivery per webhook event (an event belongs to one partner and environment, hence one endpoint). */
export const deliveryIdFor = (eventId: string): string => `whd_${sha256Hex(`delivery:${eventId}`).slice(0, 32)}`;

export type AttemptTrigger = 'schedule' | 'redelivery';

export interface DeliveryScheduledData {
  delivery_id: string;
  partner_id: string;
  environment: Environment;
  event_id: string;
  event_type: EventType;
  order_id: string | null;
  /** Orders first attempts within one order: the source event's revision, then the type's index. */
  order_revision: number | null;
  type_index: number;
  url: string;
  event: WebhookEnvelope;
  at: string;
  next_attempt_at: string;
}

export interface AttemptData {
  delivery_id: string;
  /** 1-based over every attempt of the delivery, redeliveries included. */
  attempt: number;
  trigger: AttemptTrigger;
  url: string;
  at: string;
  /** The receiver's HTTP status, or null when there was no response (refused, timeout, guard). */
  status: number | null;
  duration_ms: number;
  error: string | null;
  /** Failed scheduled attempts only: when the next one is due; null after the last. */
  next_attempt_at: string | null;
}

/**
 * An attempt claimed before it is sent: appended with the revision the sender read, so of two
 * replicas that want to make the same attempt one appends it and sends, and the other sees it.
 */
export interface AttemptStartedData {
  delivery_id: string;
  /** The number the attempt's outcome will carry. */
  attempt: number;
  trigger: AttemptTrigger;
  at: string;
  /** The replica that sends it (see Lease's holder ids). */
  sender: string;
}

/**
 * A claimed attempt whose sender stopped before recording an outcome (a crash), recorded by the
 * next sender. It uses up nothing: the attempt is made again at once, before any later event of
 * the order, and the partner may get it twice (at-least-once).
 */
export interface AttemptAbandonedData {
  delivery_id: string;
  attempt: number;
  trigger: AttemptTrigger;
  /** When the claim was made, and by whom. */
  claimed_at: string;
  sender: string;
  at: string;
}

/**
 * A delivery given up: after its last scheduled attempt, or ended early (its endpoint was deleted).
 * `reason` says which; absent in events recorded before it existed.
 */
export interface DeliveryFailedData {
  delivery_id: string;
  at: string;
  attempts: number;
  reason?: string;
}

export type DeliveryEvent =
  | { type: 'WebhookDeliveryScheduled'; data: DeliveryScheduledData }
  | { type: 'WebhookAttemptStarted'; data: AttemptStartedData }
  | { type: 'WebhookAttemptAbandoned'; data: AttemptAbandonedData }
  | { type: 'WebhookAttemptSucceeded'; data: AttemptData }
  | { type: 'WebhookAttemptFailed'; data: AttemptData }
  | { type: 'WebhookDeliveryFailed'; data: DeliveryFailedData }
  | { type: 'WebhookRedeliveryRequested'; data: { delivery_id: string; at: string; request_id: string | null } };

export type DeliveryEventType = DeliveryEvent['type'];

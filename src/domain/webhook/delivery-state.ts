import type { Environment } from '../environment.js';
import type { EventType } from './event-types.js';
import type { AttemptData, AttemptStartedData, AttemptTrigger, DeliveryEvent } from './delivery-events.js';
import { update } from '../../shared/objects.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'retrying' | 'failed';

export interface AttemptRecord {
  at: string;
  trigger: AttemptTrigger;
  url: string;
  status: number | null;
  duration_ms: number;
  error: string | null;
}

/** A delivery as the log shows it: the fold of its stream (shared by the projection and the sender). */
export interface DeliveryState {
  id: string;
  partner_id: string;
  environment: Environment;
  event_id: string;
  event_type: EventType;
  order_id: string | null;
  order_revision: number | null;
  type_index: number;
  /** Where the last attempt went (the endpoint's URL when scheduled, before any attempt). */
  url: string;
  status: DeliveryStatus;
  attempt_count: number;
  /** Attempts made by the retry schedule (redeliveries do not use it up). */
  scheduled_attempts: number;
  next_attempt_at: string | null;
  /** When a redelivery was last asked for (audit; the attempt itself is recorded like any other). */
  redelivery_requested_at: string | null;
  created_at: string;
  updated_at: string;
  attempts: AttemptRecord[];
  /** Why the delivery was given up (status `failed`); null otherwise, or when not recorded. */
  failure_reason?: string | null;
  /** The attempt claimed and not yet recorded (internal: partners see it once its outcome is in). */
  sending: Omit<AttemptStartedData, 'delivery_id'> | null;
  /** Claims abandoned in a row since the last recorded outcome (internal). */
  abandoned_claims: number;
}

/**
 * After this many abandoned claims in a row the next one is recorded as a failed attempt, so a
 * delivery whose sending itself kills the sender cannot loop for ever: the schedule takes over.
 */
export const MAX_ABANDONED_CLAIMS = 3;

/**
 * When a claimed attempt with no outcome counts as abandoned (its sender died): the spec's 8 s
 * reply wait, the URL check before it and the write after it, with room to spare. Another
 * replica then records it as failed, and the retry schedule goes on.
 */
export const ABANDONED_AFTER_MS = 20_000;

/** Pure: the delivery after one of its events (null before it was scheduled: nothing to show). */
export function evolveDelivery(state: DeliveryState | null, event: DeliveryEvent): DeliveryState | null {
  if (event.type === 'WebhookDeliveryScheduled') {
    const d = event.data;
    return {
      id: d.delivery_id,
      partner_id: d.partner_id,
      environment: d.environment,
      event_id: d.event_id,
      event_type: d.event_type,
      order_id: d.order_id,
      order_revision: d.order_revision,
      type_index: d.type_index,
      url: d.url,
      status: 'pending',
      attempt_count: 0,
      scheduled_attempts: 0,
      next_attempt_at: d.next_attempt_at,
      redelivery_requested_at: null,
      created_at: d.at,
      updated_at: d.at,
      attempts: [],
      sending: null,
      abandoned_claims: 0,
    };
  }
  if (!state) return null;
  switch (event.type) {
    case 'WebhookAttemptStarted': {
      const { delivery_id: _id, ...sending } = event.data;
      return update(state, { sending });
    }
    case 'WebhookAttemptAbandoned':
      return update(state, { sending: null, abandoned_claims: (state.abandoned_claims ?? 0) + 1 }); // ?? 0: documents folded before the field existed
    case 'WebhookAttemptSucceeded':
      return update(withAttempt(state, event.data), { status: 'succeeded', next_attempt_at: null });
    case 'WebhookAttemptFailed': {
      const next = withAttempt(state, event.data);
      if (event.data.trigger !== 'schedule') return next;
      const due = event.data.next_attempt_at;
      return update(next, { status: due ? 'retrying' : next.status, next_attempt_at: due });
    }
    case 'WebhookDeliveryFailed':
      return update(state, {
        status: 'failed',
        next_attempt_at: null,
        updated_at: event.data.at,
        sending: null,
        failure_reason: event.data.reason ?? null,
      });
    case 'WebhookRedeliveryRequested':
      return update(state, { redelivery_requested_at: event.data.at, updated_at: event.data.at });
  }
}

function withAttempt(state: DeliveryState, a: AttemptData): DeliveryState {
  const record: AttemptRecord = {
    at: a.at,
    trigger: a.trigger,
    url: a.url,
    status: a.status,
    duration_ms: a.duration_ms,
    error: a.error,
  };
  return update(state, {
    url: a.url,
    attempt_count: state.attempt_count + 1,
    scheduled_attempts: state.scheduled_attempts + (a.trigger === 'schedule' ? 1 : 0),
    attempts: [...state.attempts, record],
    updated_at: a.at,
    sending: null,
    abandoned_claims: 0,
  });
}

export function foldDelivery(events: readonly DeliveryEvent[]): DeliveryState | null {
  return events.reduce<DeliveryState | null>(evolveDelivery, null);
}

/**
 * When the retry schedule wants the next attempt, or null when it wants none. While an attempt is
 * claimed, the time it would count as abandoned (nothing is due before then), or at once when
 * `senderGone` says its sender is certainly gone.
 */
export function dueAt(state: DeliveryState, senderGone?: (sender: string) => boolean): string | null {
  if (state.sending) return senderGone?.(state.sending.sender) ? state.sending.at : abandonedAt(state.sending);
  return state.status === 'pending' || state.status === 'retrying' ? state.next_attempt_at : null;
}

function abandonedAt(sending: { at: string }): string {
  return new Date(Date.parse(sending.at) + ABANDONED_AFTER_MS).toISOString();
}

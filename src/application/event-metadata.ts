import type { Actor, EventMetadata } from '../ports/event-store.js';
import type { Environment } from '../domain/environment.js';

export const EVENT_SCHEMA_VERSION = 1;

/** The request behind an event, and what led to it (a CommandContext is one). */
export interface EventCause {
  requestId?: string | null | undefined;
  /** The caller's own id of the request (its X-Request-Id), kept apart from the service's requestId. */
  clientRequestId?: string | undefined;
  correlationId?: string | null | undefined;
  causationId?: string | null | undefined;
}

export interface MetadataInput {
  actor: Actor;
  /** Whatever a request or another event caused: its ids are written, null when unknown. */
  cause?: EventCause;
  /** The partner data the event belongs to (only its partner_id and environment are written). */
  owner?: { partner_id?: string; environment: Environment };
  orderId?: string;
  /** The time of the decision: the `at` of the events. */
  at?: string;
}

/**
 * Every event's metadata (docs/events.md, Metadata). Correlation and causation default to the
 * request, so a chain of events leads back to the request that started it.
 */
export function eventMetadata({ actor, cause, owner, orderId, at }: MetadataInput): EventMetadata {
  const metadata = {} as EventMetadata;
  if (owner?.partner_id !== undefined) metadata.partner_id = owner.partner_id;
  if (owner) metadata.environment = owner.environment;
  if (orderId !== undefined) metadata.order_id = orderId;
  metadata.actor = actor;
  if (cause) {
    const requestId = cause.requestId ?? null;
    metadata.request_id = requestId;
    if (cause.clientRequestId) metadata.client_request_id = cause.clientRequestId;
    metadata.correlation_id = cause.correlationId ?? requestId;
    metadata.causation_id = cause.causationId ?? requestId;
  }
  metadata.schema_version = EVENT_SCHEMA_VERSION;
  if (at !== undefined) metadata.occurred_at = at;
  return metadata;
}

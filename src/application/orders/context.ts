import type { EventMetadata } from '../../ports/event-store.js';
import type { Environment } from '../../ports/partner-store.js';

export type Actor = 'partner' | 'restaurant' | 'rider' | 'support' | 'sandbox' | 'system';

/** Who is acting, for authorisation (partner + environment) and for every event's metadata. */
export interface CommandContext {
  actor: Actor;
  /** Set for partner and sandbox actors; the order must belong to them. */
  partnerId?: string;
  environment?: Environment;
  requestId?: string;
  /** The caller's own id of the request (its X-Request-Id), kept apart from the service's requestId. */
  clientRequestId?: string | undefined;
  correlationId?: string;
  causationId?: string;
}

export const EVENT_SCHEMA_VERSION = 1;

export function eventMetadata(ctx: CommandContext, order: { partner_id: string; environment: Environment }, at: string): EventMetadata {
  return {
    partner_id: order.partner_id,
    environment: order.environment,
    actor: ctx.actor,
    request_id: ctx.requestId ?? null,
    ...(ctx.clientRequestId ? { client_request_id: ctx.clientRequestId } : {}),
    correlation_id: ctx.correlationId ?? ctx.requestId ?? null,
    causation_id: ctx.causationId ?? ctx.requestId ?? null,
    schema_version: EVENT_SCHEMA_VERSION,
    occurred_at: at,
  };
}

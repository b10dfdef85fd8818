import type { Actor } from '../../ports/event-store.js';
import type { Environment } from '../../domain/environment.js';
import type { EventCause } from '../event-metadata.js';

/** Who is acting, for authorisation (partner + environment) and for every event's metadata. */
export interface CommandContext extends EventCause {
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

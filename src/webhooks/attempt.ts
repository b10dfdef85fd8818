import { ApiError } from '../domain/errors.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type {
  AttemptAbandonedData,
  AttemptData,
  AttemptStartedData,
  AttemptTrigger,
  DeliveryEvent,
} from '../domain/webhook/delivery-events.js';
import { MAX_ABANDONED_CLAIMS, dueAt, evolveDelivery, type DeliveryState } from '../domain/webhook/delivery-state.js';
import type { DeliveryCause, DeliveryLog, LoadedDelivery } from './delivery-log.js';
import type { WebhookEndpoints, UrlPolicy } from './endpoints.js';
import { MAX_ATTEMPTS, nextAttemptAt } from './retry-schedule.js';
import { DEFAULT_TIMEOUT_MS, sendWebhook, type ReceiverConnections, type SendResult } from './sender.js';
import { webhookHeaders } from './signing.js';
import { checkWebhookUrl, type UrlRule } from './ssrf-guard.js';
import { WEBHOOK_USER_AGENT } from './user-agent.js';
import { extend, update } from '../shared/objects.js';

export interface AttemptDeps {
  log: DeliveryLog;
  endpoints: WebhookEndpoints;
  clock: Clock;
  urls: UrlPolicy;
  /** This replica's id, written into its claims. */
  sender: string;
  /** Reply wait of one attempt; the spec's 8 s unless a test shortens it. */
  timeoutMs?: number;
  /** Connections kept between attempts; without it each attempt opens its own. */
  connections?: ReceiverConnections;
  /** Told of every recorded outcome (metrics). */
  onOutcome?(outcome: 'succeeded' | 'failed' | 'abandoned', durationMs: number): void;
  /** Failed attempts are logged at warn (delivery id, endpoint host, reason; never the secret or body). */
  logger?: Logger;
  /** True when a claim's sender certainly no longer runs (a dead process of this host): its claim is abandoned at once. */
  senderGone?: (sender: string) => boolean;
}

/**
 * `final`: the delivery cannot succeed any more (its endpoint was deleted): it ends as failed, with
 * this reason. `registered`: the `created_at` of the registration the attempt went to.
 */
type Result = SendResult & { url: string; final?: string; registered?: string };

/** Why a delivery ends when its endpoint is deleted (DELETE /v1/webhooks/endpoint, or found gone at an attempt). */
export const ENDPOINT_DELETED_REASON = 'the webhook endpoint was deleted';
/** Why a delivery ends after its last scheduled attempt failed. */
export const ATTEMPTS_EXHAUSTED_REASON = 'every scheduled attempt failed';

/** A redelivery asked for while an attempt of the same delivery is out (here or on another replica). */
export function deliveryInProgress(deliveryId: string): ApiError {
  return new ApiError(
    'delivery_in_progress',
    `An attempt of webhook delivery ${deliveryId} is in flight; retry once it has ended.`,
  );
}

/**
 * Makes one attempt of a delivery and records it, at most once per attempt however many replicas
 * try: the attempt is claimed first (WebhookAttemptStarted, appended with the revision that was
 * read, so a second claimant fails and re-reads), then sent, then its outcome recorded. An attempt
 * that is no longer due is skipped. A claim whose sender died before recording an outcome is
 * abandoned once it is ABANDONED_AFTER_MS old (at once when its sender is certainly gone) and the
 * attempt made again: the only way the same attempt can reach the partner twice is such a crash.
 *
 * A redelivery claims with its request (WebhookRedeliveryRequested, then the claim, in one append),
 * so each accepted redelivery is one recorded attempt. While another attempt of the delivery is
 * out it is refused (ApiError delivery_in_progress) rather than queued behind it: callers on
 * several replicas would otherwise wait on one another's claims with no order among them, and a
 * partner's client would time out long before its turn.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  deliveryId: string,
  trigger: AttemptTrigger,
  requestId: string | null = null,
): Promise<DeliveryState | null> {
  for (;;) {
    const loaded = await deps.log.load(deliveryId);
    if (!loaded) return null;
    const { state } = loaded;
    const now = deps.clock.now();
    if (state.sending) {
      if (now.getTime() < Date.parse(dueAt(state, deps.senderGone)!)) {
        if (trigger === 'schedule') return state; // being sent; the scheduler looks again when it would be abandoned
        throw deliveryInProgress(deliveryId);
      }
      await abandon(deps, loaded, now, requestId);
      continue; // then the same attempt again, at once (or, after a failure recorded, as the schedule says)
    }
    if (trigger === 'schedule') {
      const due = dueAt(state);
      if (!due || Date.parse(due) > now.getTime()) return state;
    }
    const at = now.toISOString();
    const claim: AttemptStartedData = {
      delivery_id: state.id,
      attempt: state.attempt_count + 1,
      trigger,
      at,
      sender: deps.sender,
    };
    const events: DeliveryEvent[] = [{ type: 'WebhookAttemptStarted', data: claim }];
    if (trigger === 'redelivery')
      events.unshift({
        type: 'WebhookRedeliveryRequested',
        data: { delivery_id: state.id, at, request_id: requestId },
      });
    // 'ordered': every replica sees the claim once it is committed, which is what makes it a claim;
    // the outcome, appended after it in the same log, is never durable without it. A power loss that
    // takes the claim back means a crash, after which a second send is allowed. Waiting for the disk
    // here as well would put one more sync into every attempt, and an endpoint has four slots.
    if (!(await deps.log.record(state, events, loaded.revision, cause(state, requestId), 'ordered'))) {
      if (trigger === 'schedule') return (await deps.log.load(deliveryId))?.state ?? null; // another replica claimed it
      continue; // read again: claimed by another attempt (refused above), or only moved on
    }
    const claimed = update(loaded, {
      state: events.reduce<DeliveryState | null>(evolveDelivery, state)!,
      revision: loaded.revision + events.length,
    });
    const result = await send(deps, loaded, now);
    return finish(deps, claimed, claim, result, requestId);
  }
}

/**
 * Records the outcome of this replica's claimed attempt. Appends by others in between (a
 * redelivery request) only move the revision: the outcome is decided again on a fresh read and
 * appended after them, as long as the claim is still the open one.
 */
async function finish(
  deps: AttemptDeps,
  claimed: LoadedDelivery,
  claim: AttemptStartedData,
  result: Result,
  requestId: string | null,
): Promise<DeliveryState | null> {
  // Deleted while this attempt was out (DELETE leaves deliveries with an attempt out to it), even if
  // registered anew since (a new registration gets no scheduled retry of an attempt made to the one
  // deleted; a redelivery asked for sends to it): no retry follows. An endpoint store that cannot
  // answer does not keep the outcome from being recorded.
  const owner = { partnerId: claimed.state.partner_id, environment: claimed.state.environment };
  const gone =
    !result.ok &&
    !result.final &&
    (await deps.endpoints.get(owner).then(
      (endpoint) => endpoint === null || (result.registered !== undefined && endpoint.created_at !== result.registered),
      () => false,
    ));
  const outcome: Result = gone ? update(result, { final: ENDPOINT_DELETED_REASON }) : result;
  const handled = await deps.log.handle(
    claimed,
    (state) => {
      const open = state.sending;
      // Recorded as abandoned meanwhile (this replica stalled past ABANDONED_AFTER_MS): that stands.
      if (!open || open.attempt !== claim.attempt || open.sender !== claim.sender) return [];
      return outcomeEvents(deps, state, open, outcome);
    },
    cause(claimed.state, requestId),
    // A scheduled attempt's outcome is 'ordered': it holds one of the endpoint's four slots (and the
    // next event of its order) until it is recorded, and a sync per attempt capped an endpoint below
    // 200 events/s. A power loss that takes it back leaves the claim open or takes it too: the
    // attempt is made again (at-least-once), and no later claim is durable without this outcome.
    // A redelivery's caller is answered with the recorded attempt, so that waits for the disk.
    claim.trigger === 'redelivery' ? 'durable' : 'ordered',
  );
  if (handled.events.length > 0) {
    deps.onOutcome?.(result.ok ? 'succeeded' : 'failed', result.duration_ms);
    if (!result.ok) logFailure(deps, claimed.state.id, claim, result);
  }
  return handled.state;
}

/** One warn line per failed attempt: enough to find the delivery, nothing a log reader must not see. */
function logFailure(deps: AttemptDeps, deliveryId: string, claim: AttemptStartedData, result: Result): void {
  deps.logger?.warn(
    {
      delivery_id: deliveryId,
      attempt: claim.attempt,
      trigger: claim.trigger,
      endpoint_host: hostOf(result.url),
      status: result.status,
      reason: result.error,
    },
    'webhook attempt failed',
  );
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/** The outcome of the open claim: its attempt, and the delivery's failure after the last scheduled one. */
function outcomeEvents(
  deps: AttemptDeps,
  state: DeliveryState,
  claim: DeliveryState['sending'] & {},
  result: Result,
): DeliveryEvent[] {
  const finished = deps.clock.now();
  const scheduled = state.scheduled_attempts + (claim.trigger === 'schedule' ? 1 : 0);
  const next = claim.trigger === 'schedule' && !result.ok && !result.final ? nextAttemptAt(scheduled, finished) : null;
  const attempt: AttemptData = {
    delivery_id: state.id,
    attempt: claim.attempt,
    trigger: claim.trigger,
    url: result.url,
    at: claim.at,
    status: result.status,
    duration_ms: result.duration_ms,
    error: result.error,
    next_attempt_at: next ? next.toISOString() : null,
  };
  const events: DeliveryEvent[] = [
    { type: result.ok ? 'WebhookAttemptSucceeded' : 'WebhookAttemptFailed', data: attempt },
  ];
  const reason = result.ok
    ? null
    : (result.final ?? (claim.trigger === 'schedule' && scheduled >= MAX_ATTEMPTS ? ATTEMPTS_EXHAUSTED_REASON : null));
  if (reason !== null && (state.status === 'pending' || state.status === 'retrying')) {
    events.push({
      type: 'WebhookDeliveryFailed',
      data: { delivery_id: state.id, at: finished.toISOString(), attempts: scheduled, reason },
    });
  }
  return events;
}

function cause(state: DeliveryState, requestId: string | null): DeliveryCause {
  return { causationId: null, correlationId: state.event_id, requestId };
}

/**
 * Closes a claim whose sender stopped before recording an outcome. Usually it uses up nothing and
 * the attempt is made again at once, so a crash never lets a later event of the order go first;
 * after MAX_ABANDONED_CLAIMS in a row it is recorded as a failed attempt, and the schedule decides.
 */
async function abandon(deps: AttemptDeps, loaded: LoadedDelivery, now: Date, requestId: string | null): Promise<void> {
  const { state } = loaded;
  const claim = state.sending!;
  const ms = Math.max(0, now.getTime() - Date.parse(claim.at));
  if ((state.abandoned_claims ?? 0) + 1 < MAX_ABANDONED_CLAIMS) {
    const data: AttemptAbandonedData = {
      delivery_id: state.id,
      attempt: claim.attempt,
      trigger: claim.trigger,
      claimed_at: claim.at,
      sender: claim.sender,
      at: now.toISOString(),
    };
    if (
      await deps.log.record(
        state,
        [{ type: 'WebhookAttemptAbandoned', data }],
        loaded.revision,
        cause(state, requestId),
      )
    )
      deps.onOutcome?.('abandoned', ms);
    return;
  }
  const failed: Result = {
    ok: false,
    status: null,
    duration_ms: ms,
    error: `no outcome was recorded ${MAX_ABANDONED_CLAIMS} times in a row: the sending replica stopped each time before it could record one (the receiver may have got it)`,
    response_excerpt: null,
    url: state.url,
  };
  if (await deps.log.record(state, outcomeEvents(deps, state, claim, failed), loaded.revision, cause(state, requestId)))
    deps.onOutcome?.('abandoned', ms);
}

/** Re-checks the URL (DNS may have changed), signs afresh and sends to the checked addresses. */
async function send(deps: AttemptDeps, loaded: LoadedDelivery, now: Date): Promise<Result> {
  const { state, envelope } = loaded;
  const endpoint = await deps.endpoints.get({ partnerId: state.partner_id, environment: state.environment });
  if (!endpoint)
    return update(refused(state.url, 'no webhook endpoint is registered any more'), { final: ENDPOINT_DELETED_REASON });
  const registered = endpoint.created_at;
  const check = await checkWebhookUrl(endpoint.url, deps.urls);
  if (!check.ok)
    return extend(refused(endpoint.url, `refused before sending: ${REFUSALS[check.rule]}`), { registered });
  const body = JSON.stringify(envelope);
  const signed = webhookHeaders({
    secrets: deps.endpoints.signingSecrets(endpoint, now),
    timestamp: Math.floor(now.getTime() / 1000),
    eventId: envelope.id,
    eventType: envelope.type,
    body,
  });
  const headers = extend(signed, { 'User-Agent': WEBHOOK_USER_AGENT });
  const result = await sendWebhook(
    {
      url: check.url,
      addresses: check.addresses,
      headers,
      body,
      timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    },
    deps.connections,
  );
  return extend(result, { url: endpoint.url, registered });
}

/** Short, fixed reasons for the delivery log: never the addresses a host name resolved to. */
const REFUSALS: Record<UrlRule, string> = {
  length: 'URL not allowed',
  syntax: 'URL not allowed',
  credentials: 'URL not allowed',
  scheme: 'scheme not allowed',
  port: 'port not allowed',
  unresolved: 'host could not be resolved',
  address: 'host is a non-public address',
  resolved: 'host resolves to a non-public address',
};

function refused(url: string, error: string): Result {
  return { ok: false, status: null, duration_ms: 0, error, response_excerpt: null, url };
}

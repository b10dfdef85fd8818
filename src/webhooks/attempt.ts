import type { Clock } from '../shared/clock.js';
import type { AttemptData, AttemptTrigger, DeliveryEvent } from './delivery-events.js';
import { dueAt, evolveDelivery, type DeliveryState } from './delivery-state.js';
import type { DeliveryLog, LoadedDelivery } from './delivery-log.js';
import type { WebhookEndpoints, UrlPolicy } from './endpoints.js';
import { MAX_ATTEMPTS, nextAttemptAt } from './retry-schedule.js';
import { DEFAULT_TIMEOUT_MS, sendWebhook, type SendResult } from './sender.js';
import { webhookHeaders } from './signing.js';
import { checkWebhookUrl } from './ssrf-guard.js';

export interface AttemptDeps {
  log: DeliveryLog;
  endpoints: WebhookEndpoints;
  clock: Clock;
  urls: UrlPolicy;
  /** Reply wait of one attempt; the spec's 8 s unless a test shortens it. */
  timeoutMs?: number;
}

/**
 * Makes one attempt of a delivery and records it. The delivery is read from its stream first, so
 * an attempt that is no longer due (another process made it) is skipped, and the result is
 * appended expecting the revision that was read: a race records one outcome, never two.
 */
export async function attemptDelivery(deps: AttemptDeps, deliveryId: string, trigger: AttemptTrigger, requestId: string | null = null): Promise<DeliveryState | null> {
  const loaded = await deps.log.load(deliveryId);
  if (!loaded) return null;
  const { state } = loaded;
  const started = deps.clock.now();
  if (trigger === 'schedule') {
    const due = dueAt(state);
    if (!due || Date.parse(due) > started.getTime()) return state;
  }
  const result = await send(deps, loaded, started);
  const finished = deps.clock.now();
  const scheduled = state.scheduled_attempts + (trigger === 'schedule' ? 1 : 0);
  const next = trigger === 'schedule' && !result.ok ? nextAttemptAt(scheduled, finished) : null;
  const attempt: AttemptData = {
    delivery_id: state.id,
    attempt: state.attempt_count + 1,
    trigger,
    url: result.url,
    at: started.toISOString(),
    status: result.status,
    duration_ms: result.duration_ms,
    error: result.error,
    next_attempt_at: next ? next.toISOString() : null,
  };
  const events: DeliveryEvent[] = [{ type: result.ok ? 'WebhookAttemptSucceeded' : 'WebhookAttemptFailed', data: attempt }];
  if (!result.ok && trigger === 'schedule' && scheduled >= MAX_ATTEMPTS) {
    events.push({ type: 'WebhookDeliveryFailed', data: { delivery_id: state.id, at: finished.toISOString(), attempts: scheduled } });
  }
  const cause = { causationId: null, correlationId: state.event_id, requestId };
  if (await deps.log.record(state, events, loaded.revision, cause)) return events.reduce<DeliveryState | null>(evolveDelivery, state);
  return (await deps.log.load(deliveryId))?.state ?? null;
}

/** Re-checks the URL (DNS may have changed), signs afresh and sends to the checked addresses. */
async function send(deps: AttemptDeps, loaded: LoadedDelivery, now: Date): Promise<SendResult & { url: string }> {
  const { state, envelope } = loaded;
  const endpoint = await deps.endpoints.get({ partnerId: state.partner_id, environment: state.environment });
  if (!endpoint) return refused(state.url, 'no webhook endpoint is registered any more');
  const check = await checkWebhookUrl(endpoint.url, deps.urls);
  if (!check.ok) return refused(endpoint.url, `refused before sending: ${check.reason}`);
  const body = JSON.stringify(envelope);
  const headers = webhookHeaders({
    secrets: deps.endpoints.signingSecrets(endpoint, now),
    timestamp: Math.floor(now.getTime() / 1000),
    eventId: envelope.id,
    eventType: envelope.type,
    body,
  });
  const result = await sendWebhook({ url: check.url, addresses: check.addresses, headers, body, timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  return { ...result, url: endpoint.url };
}

function refused(url: string, error: string): SendResult & { url: string } {
  return { ok: false, status: null, duration_ms: 0, error, response_excerpt: null, url };
}

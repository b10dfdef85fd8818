import { ApiError } from '../domain/errors.js';
import type { Environment } from '../domain/environment.js';
import type { WebhookEndpointRecord, WebhookEndpointStore } from '../ports/webhook-endpoint-store.js';
import type { Clock } from '../shared/clock.js';
import { unknownEventTypes, type EventType } from '../domain/webhook/event-types.js';
import { decryptSecret, encryptSecret } from './secret-box.js';
import { newSigningSecret } from './signing.js';
import { checkWebhookUrl, type Resolver, type UrlRule } from './ssrf-guard.js';

/** After a rotation the replaced secret keeps signing (as a second v1) for this long. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const MAX_CAS_ATTEMPTS = 10;

export interface EndpointOwner {
  partnerId: string;
  environment: Environment;
}

/** What the API shows; `secret` only right after creation or rotation. */
export interface EndpointView {
  object: 'webhook_endpoint';
  url: string;
  events: EventType[] | null;
  /** The same list as `events` (the name Stripe-style clients expect); null means every type. */
  enabled_events: EventType[] | null;
  secret_hint: string;
  secret?: string;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface UrlPolicy {
  allowPrivate: boolean;
  resolve?: Resolver;
}

/** Registration, rotation and the signing secrets of the one endpoint per partner and environment. */
export class WebhookEndpoints {
  constructor(private readonly deps: { store: WebhookEndpointStore; key: Buffer; clock: Clock; urls: UrlPolicy }) {}

  get(owner: EndpointOwner): Promise<WebhookEndpointRecord | null> {
    return this.deps.store.get(owner.partnerId, owner.environment);
  }

  /** The registration as the API shows it (never the secret); not_found when there is none. */
  async view(owner: EndpointOwner): Promise<EndpointView> {
    const record = await this.get(owner);
    if (!record) throw notRegistered();
    return present(record, undefined, this.deps.clock.now());
  }

  /**
   * Deletes the endpoint (compare-and-delete on a fresh read); not_found when there is none. The
   * caller ends its unfinished deliveries; an attempt already out finds it gone and ends its delivery.
   */
  async remove(owner: EndpointOwner): Promise<EndpointView> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = await this.get(owner);
      if (!current) throw notRegistered();
      if (await this.deps.store.delete(owner.partnerId, owner.environment, current.version)) {
        return present(current, undefined, this.deps.clock.now());
      }
    }
    throw new ApiError('concurrent_modification', 'The webhook endpoint kept changing; retry the request.');
  }

  /**
   * PUT semantics: the first call creates (and shows the secret once); later calls replace url and
   * the event types. `enabled_events` and `events` name the same list (give either, or both equal).
   */
  async register(
    owner: EndpointOwner,
    input: { url: string; events?: string[] | null | undefined; enabled_events?: string[] | null | undefined },
  ): Promise<{ created: boolean; endpoint: EndpointView }> {
    // What the document states (400) before the rules it cannot state (422): see docs/api.md.
    const chosen = {
      events: checkEvents(input.events, 'events'),
      enabled_events: checkEvents(input.enabled_events, 'enabled_events'),
    };
    const check = await checkWebhookUrl(input.url, this.deps.urls);
    if (!check.ok && !HOST_RULES.has(check.rule))
      throw new ApiError('validation_error', check.reason, { param: 'url' });
    const events = chosenEvents(chosen);
    if (!check.ok) throw new ApiError('url_not_allowed', check.reason, { param: 'url' });
    return this.change(owner, (current, now) => {
      if (current)
        return { record: { ...current, url: input.url, events, updated_at: now, version: current.version + 1 } };
      const secret = newSigningSecret();
      const record: WebhookEndpointRecord = {
        partner_id: owner.partnerId,
        environment: owner.environment,
        url: input.url,
        events,
        ...this.sealed(secret),
        previous_secret_box: null,
        previous_secret_expires_at: null,
        created_at: now,
        updated_at: now,
        version: 1,
      };
      return { record, secret };
    });
  }

  /** A new secret, shown once; the replaced one keeps signing for ROTATION_OVERLAP_MS. */
  async rotateSecret(owner: EndpointOwner): Promise<EndpointView> {
    const { endpoint } = await this.change(owner, (current, now) => {
      if (!current) throw notConfigured();
      const secret = newSigningSecret();
      const expires = new Date(Date.parse(now) + ROTATION_OVERLAP_MS).toISOString();
      const record = {
        ...current,
        ...this.sealed(secret),
        previous_secret_box: current.secret_box,
        previous_secret_expires_at: expires,
        updated_at: now,
        version: current.version + 1,
      };
      return { record, secret };
    });
    return endpoint;
  }

  /** The secrets that sign a delivery now, newest first (two during a rotation overlap). */
  signingSecrets(endpoint: WebhookEndpointRecord, now: Date): string[] {
    const secrets = [decryptSecret(endpoint.secret_box, this.deps.key)];
    const until = endpoint.previous_secret_expires_at;
    if (endpoint.previous_secret_box && until && Date.parse(until) > now.getTime()) {
      secrets.push(decryptSecret(endpoint.previous_secret_box, this.deps.key));
    }
    return secrets;
  }

  private sealed(secret: string) {
    return { secret_box: encryptSecret(secret, this.deps.key), secret_hint: secret.slice(-4) };
  }

  /** Read, decide, compare-and-set; a concurrent writer makes us decide again on a fresh read. */
  private async change(
    owner: EndpointOwner,
    decide: (current: WebhookEndpointRecord | null, now: string) => { record: WebhookEndpointRecord; secret?: string },
  ): Promise<{ created: boolean; endpoint: EndpointView }> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = await this.get(owner);
      const { record, secret } = decide(current, this.deps.clock.now().toISOString());
      if (await this.deps.store.save(record, current?.version ?? null)) {
        return { created: current === null, endpoint: present(record, secret, this.deps.clock.now()) };
      }
    }
    throw new ApiError('concurrent_modification', 'The webhook endpoint kept changing; retry the request.');
  }
}

export function notConfigured(): ApiError {
  return new ApiError(
    'webhook_endpoint_not_configured',
    'No webhook endpoint is registered for this environment; register one with PUT /v1/webhooks/endpoint.',
  );
}

function notRegistered(): ApiError {
  return new ApiError(
    'not_found',
    'No webhook endpoint is registered for this environment; register one with PUT /v1/webhooks/endpoint.',
  );
}

/** The URL rules that depend on what a host name resolves to, not on the text: 422, not 400. */
const HOST_RULES: ReadonlySet<UrlRule> = new Set(['unresolved', 'resolved']);

/**
 * `enabled_events` or its older name `events` (null, as answers show it, or left out: all types);
 * both given must name the same types.
 */
function chosenEvents(input: {
  events: EventType[] | null | undefined;
  enabled_events: EventType[] | null | undefined;
}): EventType[] | null {
  const { events, enabled_events: enabled } = input;
  if (enabled === undefined) return events ?? null;
  if (events === undefined) return enabled;
  const within = (a: EventType[] | null, b: EventType[] | null) =>
    a === null || b === null ? a === b : a.every((t) => b.includes(t));
  if (!within(events, enabled) || !within(enabled, events)) {
    throw new ApiError(
      'conflicting_parameters',
      'enabled_events and events name the same list: give one of them (or both with the same types).',
      { param: 'enabled_events' },
    );
  }
  return enabled;
}

export function present(record: WebhookEndpointRecord, secret: string | undefined, now: Date): EndpointView {
  const until = record.previous_secret_expires_at;
  return {
    object: 'webhook_endpoint',
    url: record.url,
    events: record.events,
    enabled_events: record.events,
    secret_hint: record.secret_hint,
    ...(secret ? { secret } : {}),
    previous_secret_expires_at: until && Date.parse(until) > now.getTime() ? until : null,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

function checkEvents(events: string[] | null | undefined, param: string): EventType[] | null | undefined {
  if (events === undefined || events === null) return events;
  const unknown = unknownEventTypes(events);
  if (unknown.length > 0) {
    const names = unknown.map((n) => JSON.stringify(n)).join(', ');
    throw new ApiError('validation_error', `${param}: unknown event type${unknown.length > 1 ? 's' : ''} ${names}.`, {
      param,
    });
  }
  return [...new Set(events)] as EventType[];
}

import type { EventStore } from '../../ports/event-store.js';
import type { PaymentLink, PaymentProvider } from '../../ports/payment-provider.js';
import type { Environment } from '../../domain/environment.js';
import { ApiError } from '../../domain/errors.js';
import type { Currency } from '../../domain/money.js';
import type { Clock } from '../../shared/clock.js';
import { randomToken, sha256Hex } from '../../shared/ids.js';
import { handleCommand, type ReadStream } from '../command-handler.js';
import { eventMetadata } from '../event-metadata.js';
import { extend, update } from '../../shared/objects.js';

export interface CheckoutSession {
  order_id: string;
  environment: Environment;
  amount: number;
  currency: Currency;
  description: string;
  expires_at: string;
  outcome: 'paid' | 'failed' | null;
  provider_ref: string;
}

const LINK_TTL_MS = 30 * 60_000;

/**
 * No money moves through the built-in checkout, so only sandbox payments are taken: a live link
 * would mark an order paid for a click. Its pages refuse live sessions too (links another replica
 * of an older build may still make).
 */
export const takesPayments = (environment: Environment): boolean => environment === 'sandbox';

/**
 * The built-in payment provider: a hosted checkout page served by this service. Each link is a
 * session whose id (in the URL) is the capability to pay; only its hash names the session's stream,
 * so the event log never holds a usable link. It takes sandbox payments only (takesPayments).
 */
export class BuiltinCheckout implements PaymentProvider {
  constructor(private readonly deps: { events: EventStore; clock: Clock; baseUrl: string }) {}

  async createLink(input: {
    order_id: string;
    environment: Environment;
    amount: number;
    currency: Currency;
    description: string;
  }): Promise<PaymentLink> {
    if (!takesPayments(input.environment))
      throw new ApiError(
        'payment_provider_unavailable',
        'Payment links are not available in live: this service has no live payment provider. A live card order is paid through the operator.',
      );
    const sessionId = `cs_${randomToken(24)}`;
    const now = this.deps.clock.now();
    const expires_at = new Date(now.getTime() + LINK_TTL_MS).toISOString();
    const created: SessionEvent = {
      type: 'CheckoutSessionCreated',
      data: extend(input, { expires_at, at: now.toISOString() }),
    };
    await handleCommand(this.deps.events, streamOf(sessionId), SESSIONS, () => [created], {
      // A new random id: its stream is empty, and another session with it would be a fault, not a race.
      from: NO_SESSION,
      retries: 0,
      metadata: () => metadata(input, now),
    });
    return {
      id: `pl_${refOf(sessionId)}`,
      url: `${this.deps.baseUrl.replace(/\/$/, '')}/checkout/${sessionId}`,
      expires_at,
    };
  }

  async session(sessionId: string): Promise<CheckoutSession | null> {
    if (!/^cs_[0-9A-Za-z]{20,64}$/.test(sessionId)) return null;
    let session = SESSIONS.initialState();
    for (const e of await this.deps.events.readStream(streamOf(sessionId)))
      session = SESSIONS.evolve(session, { type: e.type, data: e.data } as SessionEvent);
    return session && extend(session, { provider_ref: `pl_${refOf(sessionId)}` });
  }

  isExpired(session: CheckoutSession): boolean {
    return Date.parse(session.expires_at) <= this.deps.clock.now().getTime();
  }

  /** Records the payer's outcome once; a second outcome for the same session is refused (false). */
  async complete(sessionId: string, session: CheckoutSession, outcome: 'paid' | 'failed'): Promise<boolean> {
    const now = this.deps.clock.now();
    const completed: SessionEvent = { type: 'CheckoutSessionCompleted', data: { outcome, at: now.toISOString() } };
    const handled = await handleCommand(
      this.deps.events,
      streamOf(sessionId),
      SESSIONS,
      (s) => (s?.outcome ? [] : [completed]),
      {
        // The session as the caller read it (created, no outcome yet). Of two outcomes, the one
        // appended second conflicts and stays refused.
        from: { state: session, revision: 0 },
        onConflict: 'return',
        metadata: () => metadata(session, now),
      },
    );
    return !handled.conflict && handled.events.length > 0;
  }
}

/** A session's stream folded: what it was created with, and its outcome once recorded. */
type SessionFacts = Omit<CheckoutSession, 'provider_ref'>;
type SessionEvent =
  | { type: 'CheckoutSessionCreated'; data: Omit<SessionFacts, 'outcome'> & { at: string } }
  | { type: 'CheckoutSessionCompleted'; data: { outcome: 'paid' | 'failed'; at: string } };

const SESSIONS = {
  initialState: (): SessionFacts | null => null,
  evolve: (session: SessionFacts | null, e: SessionEvent): SessionFacts | null =>
    e.type === 'CheckoutSessionCreated'
      ? extend(e.data, { outcome: null })
      : session && update(session, { outcome: e.data.outcome }),
};

const NO_SESSION: ReadStream<SessionFacts | null> = { state: null, revision: 'no_stream' };

function metadata(session: { order_id: string; environment: Environment }, now: Date) {
  return eventMetadata({
    actor: 'system',
    owner: { environment: session.environment },
    orderId: session.order_id,
    at: now.toISOString(),
  });
}

const refOf = (sessionId: string) => sha256Hex(sessionId).slice(0, 24);
const streamOf = (sessionId: string) => `checkout-${sha256Hex(sessionId).slice(0, 40)}`;

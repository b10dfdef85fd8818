import { WrongExpectedRevisionError, type EventStore } from '../../ports/event-store.js';
import type { PaymentLink, PaymentProvider } from '../../ports/payment-provider.js';
import type { Environment } from '../../ports/partner-store.js';
import type { Currency } from '../../domain/money.js';
import type { Clock } from '../../shared/clock.js';
import { randomToken, sha256Hex } from '../../shared/ids.js';
import { EVENT_SCHEMA_VERSION } from '../orders/context.js';

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
 * The built-in payment provider: a hosted checkout page served by this service. Each link is a
 * session whose id (in the URL) is the capability to pay; only its hash names the session's stream,
 * so the event log never holds a usable link.
 */
export class BuiltinCheckout implements PaymentProvider {
  constructor(private readonly deps: { events: EventStore; clock: Clock; baseUrl: string }) {}

  async createLink(input: { order_id: string; environment: Environment; amount: number; currency: Currency; description: string }): Promise<PaymentLink> {
    const sessionId = `cs_${randomToken(24)}`;
    const now = this.deps.clock.now();
    const expires_at = new Date(now.getTime() + LINK_TTL_MS).toISOString();
    await this.deps.events.append(
      streamOf(sessionId),
      [{ type: 'CheckoutSessionCreated', data: { ...input, expires_at, at: now.toISOString() }, metadata: this.metadata(input, now) }],
      { expectedRevision: 'no_stream' },
    );
    return { id: `pl_${refOf(sessionId)}`, url: `${this.deps.baseUrl.replace(/\/$/, '')}/checkout/${sessionId}`, expires_at };
  }

  async session(sessionId: string): Promise<CheckoutSession | null> {
    if (!/^cs_[0-9A-Za-z]{20,64}$/.test(sessionId)) return null;
    const events = await this.deps.events.readStream(streamOf(sessionId));
    const created = events[0];
    if (!created) return null;
    const completed = events[1];
    return {
      ...(created.data as unknown as Omit<CheckoutSession, 'outcome' | 'provider_ref'>),
      outcome: completed ? (completed.data.outcome as 'paid' | 'failed') : null,
      provider_ref: `pl_${refOf(sessionId)}`,
    };
  }

  isExpired(session: CheckoutSession): boolean {
    return Date.parse(session.expires_at) <= this.deps.clock.now().getTime();
  }

  /** Records the payer's outcome once; a second outcome for the same session is refused (false). */
  async complete(sessionId: string, session: CheckoutSession, outcome: 'paid' | 'failed'): Promise<boolean> {
    const now = this.deps.clock.now();
    try {
      await this.deps.events.append(
        streamOf(sessionId),
        [{ type: 'CheckoutSessionCompleted', data: { outcome, at: now.toISOString() }, metadata: this.metadata(session, now) }],
        { expectedRevision: 0 },
      );
      return true;
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) return false;
      throw err;
    }
  }

  private metadata(input: { order_id: string; environment: Environment }, now: Date) {
    return {
      environment: input.environment,
      order_id: input.order_id,
      actor: 'system',
      schema_version: EVENT_SCHEMA_VERSION,
      occurred_at: now.toISOString(),
    };
  }
}

const refOf = (sessionId: string) => sha256Hex(sessionId).slice(0, 24);
const streamOf = (sessionId: string) => `checkout-${sha256Hex(sessionId).slice(0, 40)}`;

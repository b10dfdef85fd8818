import type { EventStore } from '../../ports/event-store.js';
import type { PaymentLink, PaymentProvider } from '../../ports/payment-provider.js';
import type { Clock } from '../../shared/clock.js';
import { ApiError } from '../../domain/errors.js';
import { fromMajor, MAX_TIP, maxTipMinor } from '../../domain/money.js';
import type { CatalogIndex } from '../../domain/catalog/catalog-index.js';
import { awaitsPayment, decide, type NewOrder, type OrderCommand } from '../../domain/order/decide.js';
import type { OrderState, OrderView } from '../../domain/order/state.js';
import { priceOrder, type OrderLineRequest } from '../../domain/order/pricing.js';
import type { Point } from '../../domain/catalog/model.js';
import { newTimeOrderedId, randomToken } from '../../shared/ids.js';
import { OrderRepository } from './order-repository.js';
import { assertSameRequest, IdempotencyKeys, idempotencyStream, requestHash, type Claim } from './idempotency.js';
import type { CommandContext } from './context.js';
import type { DeliveryQuotes } from './quotes.js';
import { copy, update } from '../../shared/objects.js';

export interface CatalogReader {
  current(): CatalogIndex;
}

export interface PlaceOrderInput {
  store_id: string;
  fulfilment: 'delivery' | 'pickup';
  items: OrderLineRequest[];
  customer: { name: string; phone: string };
  delivery_address?:
    | { line1: string; floor?: string | undefined; apartment?: string | undefined; area: string; location: Point }
    | undefined;
  payment_method: 'cash' | 'card';
  reference?: string | undefined;
  /** Major units of the store's currency, as the partner sent it. */
  tip?: number | undefined;
  promo_code?: string | undefined;
  /** A delivery quote's id: the order is charged its fee and starts from its estimate. */
  quote_id?: string | undefined;
}

export interface OrderResult {
  order: OrderView;
  /** Global position of the write (read-your-writes). */
  position?: bigint;
}

export type PartnerContext = CommandContext & { partnerId: string; environment: 'live' | 'sandbox' };

const ORDER_NUMBER_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

export class OrderService {
  private readonly orders: OrderRepository;
  private readonly keys: IdempotencyKeys;

  constructor(
    private readonly deps: {
      events: EventStore;
      catalog: CatalogReader;
      clock: Clock;
      payments: PaymentProvider;
      quotes: DeliveryQuotes;
    },
  ) {
    this.orders = new OrderRepository(deps.events);
    this.keys = new IdempotencyKeys(deps.events);
  }

  private now = (): string => this.deps.clock.now().toISOString();

  /**
   * A retry of a placement whose body this process has already validated and matched to the key
   * (`received`: the body's bytes as received, which `remember` was given): the order as it is now,
   * without validating the body again. Null when that is not known here, or the order is not there
   * yet (a crash, or the first request still working): the caller then validates the body and calls
   * `place`. The HTTP edge's fast path for retries; a placement itself never sees the bytes.
   */
  async replay(ctx: PartnerContext, idempotencyKey: string, received: string): Promise<OrderView | null> {
    // No wait for the disk here: a body is remembered only after `place` answered, durably.
    const claim = this.keys.retry(idempotencyStream(ctx.environment, ctx.partnerId, idempotencyKey), received);
    return claim ? (await this.orders.load(claim.order_id)).state.order : null;
  }

  /** `received` is the body of a placement with this key that `place` has just accepted: see `replay`. */
  remember(ctx: PartnerContext, idempotencyKey: string, received: string): void {
    const claim = this.keys.known(idempotencyStream(ctx.environment, ctx.partnerId, idempotencyKey));
    if (claim) this.keys.remember(claim, received);
  }

  /**
   * Idempotent placement. A replay (same key, same body) answers with the order as it is now and
   * never re-validates; a different body is a conflict; a claim left without an order (a crash, or a
   * concurrent request still working) is completed by whichever request gets to append the order.
   */
  async place(
    ctx: PartnerContext,
    idempotencyKey: string,
    input: PlaceOrderInput,
  ): Promise<OrderResult & { created: boolean }> {
    const stream = idempotencyStream(ctx.environment, ctx.partnerId, idempotencyKey);
    // Only a claim kept in this process is looked at first. Any other is found by the claim's own
    // append (it expects no stream), inside the log's write transaction: a new key, nearly every
    // placement, costs no read of its claim stream.
    let claim = this.keys.known(stream);
    if (claim) {
      const placed = await this.placedBefore(claim, input);
      if (placed) return placed;
    }
    const at = this.now();
    const placedAt = new Date(at);
    let order: NewOrder;
    try {
      order = this.buildOrder(ctx, claim?.order_id ?? newOrderId(ctx.environment, placedAt), input, placedAt);
    } catch (err) {
      // A retry answers with its order even when the body no longer prices (the store has closed
      // since, the offer or the quote has expired): the claim is read before the refusal is returned.
      if (!(err instanceof ApiError)) throw err;
      const stored = claim ? null : await this.keys.find(stream);
      const placed = stored && (await this.placedBefore(stored, input));
      if (placed) return placed;
      throw err;
    }
    // An id this request made up and claimed has no stream yet; one found in a claim may have.
    let newStream = false;
    if (!claim) {
      const hash = requestHash(input);
      const result = await this.keys.claim(
        stream,
        { request_hash: hash, order_id: order.order_id },
        {
          partner_id: ctx.partnerId,
          environment: ctx.environment,
          ...(ctx.requestId ? { request_id: ctx.requestId } : {}),
          ...(ctx.clientRequestId ? { client_request_id: ctx.clientRequestId } : {}),
          at,
        },
      );
      claim = result.claim;
      try {
        assertSameRequest(claim, hash);
      } catch (err) {
        return this.refuse(err);
      }
      newStream = result.won;
      order.order_id = claim.order_id;
    }
    // Whoever appends OrderPlaced answers 201; a request that finds the order already there, 200.
    const handled = await this.orders.handle(
      order.order_id,
      ctx,
      this.now,
      (state, now) => (state.order ? [] : decide(state, { type: 'place', order }, now)),
      { newStream },
    );
    const created = handled.events.length > 0;
    return { order: handled.state.order!, ...(created ? { position: handled.position } : {}), created };
  }

  /**
   * The order an earlier request with this claim placed; null when there is none yet (a crash
   * between the claim and the order); idempotency_conflict when `input` is another body.
   */
  private async placedBefore(
    claim: Claim,
    input: PlaceOrderInput,
  ): Promise<{ order: OrderView; created: false } | null> {
    try {
      this.keys.assertSameBody(claim, input);
    } catch (err) {
      return this.refuse(err);
    }
    const existing = await this.orders.load(claim.order_id);
    if (!existing.state.order) return null;
    // The first request may still be waiting for the disk: this answer acknowledges the order too.
    await this.deps.events.whenDurable();
    return { order: existing.state.order, created: false };
  }

  /**
   * A refusal that rests on what was read (a claim, an order's state, either maybe not yet on disk)
   * acknowledges it as an answer would: thrown once that is durable, as handleCommand does.
   */
  private async refuse(error: unknown): Promise<never> {
    await this.deps.events.whenDurable();
    throw error;
  }

  private buildOrder(ctx: PartnerContext, orderId: string, input: PlaceOrderInput, at: Date): NewOrder {
    const catalog = this.deps.catalog.current();
    const store = catalog.store(input.store_id);
    const tip = input.tip === undefined || !store ? 0 : tipInMinor(input.tip, store.currency);
    // Checked before pricing (a missing store is still store_not_found): a quote for another
    // store, place or time is the answer, not a fee it never promised.
    const quote =
      input.quote_id === undefined || !store
        ? undefined
        : this.deps.quotes.redeem({ partnerId: ctx.partnerId, environment: ctx.environment }, input.quote_id, {
            store_id: input.store_id,
            fulfilment: input.fulfilment,
            location: input.delivery_address?.location,
          });
    const priced = priceOrder(
      catalog,
      {
        store_id: input.store_id,
        fulfilment: input.fulfilment,
        items: input.items,
        location: input.delivery_address?.location,
        tip,
        promo_code: input.promo_code,
        quoted_delivery_fee: quote?.delivery_fee,
      },
      at,
    );
    return {
      order_id: orderId,
      environment: ctx.environment,
      partner_id: ctx.partnerId,
      reference: input.reference ?? null,
      order_number: orderNumber(),
      store: { id: priced.store.id, name: priced.store.name },
      currency: priced.store.currency,
      fulfilment: input.fulfilment,
      lines: priced.lines,
      customer: input.customer,
      delivery_address: input.fulfilment === 'delivery' && input.delivery_address ? copy(input.delivery_address) : null,
      payment_method: input.payment_method,
      pricing: priced.pricing,
      promo_code: priced.promo_code,
      offer_id: priced.offer_id,
      ...(quote ? { quote } : {}),
    };
  }

  /** The partner's order in its environment; anyone else's is indistinguishable from a missing one. */
  async get(ctx: PartnerContext, orderId: string): Promise<OrderView> {
    return ownedBy(ctx, (await this.orders.load(orderId)).state, orderId);
  }

  async cancel(ctx: PartnerContext, orderId: string, reason: string | null): Promise<OrderResult> {
    return this.partnerCommand(ctx, orderId, { type: 'cancelByPartner', reason });
  }

  /** Ownership is checked first, so a live key learns nothing about ids that are not its own (404). */
  async sandboxAdvance(ctx: PartnerContext, orderId: string): Promise<OrderResult> {
    return this.partnerCommand(update(ctx, { actor: 'sandbox' }), orderId, { type: 'sandboxAdvance' });
  }

  /** A link for a payment the order machine would take now; the checks after it only explain a refusal. */
  async paymentLink(ctx: PartnerContext, orderId: string): Promise<{ order: OrderView; link: PaymentLink }> {
    const { state } = await this.orders.load(orderId);
    const order = ownedBy(ctx, state, orderId);
    if (!awaitsPayment(state)) return this.refuse(notPayable(order));
    const link = await this.deps.payments.createLink({
      order_id: order.order_id,
      environment: order.environment,
      amount: order.pricing.total,
      currency: order.currency,
      description: `${order.store.name} order ${order.order_number}`,
    });
    return { order, link };
  }

  /** Operations (restaurant, rider, support) and payment outcomes: no partner ownership check. */
  async operate(ctx: CommandContext, orderId: string, command: OrderCommand): Promise<OrderResult> {
    const handled = await this.orders.handle(orderId, ctx, this.now, (state, now) => decide(state, command, now));
    return { order: handled.state.order!, position: handled.position };
  }

  /**
   * A reaction to an event of a consumer group (auto-accept): runs `command` only when `applies`
   * holds for the order as read for the command itself (one read, one fold). Returns whether it
   * ran; a missing order or a false condition writes nothing. Written 'ordered': no answer waits
   * for it, and the group stores its position after it in the same log, so a power loss that takes
   * the event back takes the position too, and the reaction runs again.
   */
  async reactIf(
    ctx: CommandContext,
    orderId: string,
    applies: (order: OrderView) => boolean,
    command: OrderCommand,
  ): Promise<boolean> {
    const handled = await this.orders.handle(
      orderId,
      ctx,
      this.now,
      (state, now) => (state.order && applies(state.order) ? decide(state, command, now) : []),
      { durability: 'ordered' },
    );
    return handled.events.length > 0;
  }

  async load(orderId: string): Promise<OrderView | null> {
    return (await this.orders.load(orderId)).state.order;
  }

  /** Whether the order would take a card payment now (a payment link's page asks). */
  async awaitsPayment(orderId: string): Promise<boolean> {
    return awaitsPayment((await this.orders.load(orderId)).state);
  }

  private async partnerCommand(ctx: PartnerContext, orderId: string, command: OrderCommand): Promise<OrderResult> {
    const handled = await this.orders.handle(orderId, ctx, this.now, (state, now) => {
      ownedBy(ctx, state, orderId);
      return decide(state, command, now);
    });
    return { order: handled.state.order!, position: handled.position };
  }
}

function ownedBy(ctx: PartnerContext, state: OrderState, orderId: string): OrderView {
  const order = state.order;
  if (!order || order.partner_id !== ctx.partnerId || order.environment !== ctx.environment) {
    throw new ApiError('order_not_found', `No order with id ${orderId}.`, { param: 'order_id' });
  }
  return order;
}

function notPayable(order: OrderView): ApiError {
  if (order.payment_method !== 'card')
    return new ApiError('payment_not_required', 'Cash orders are paid on delivery or collection.');
  if (
    order.payment_status === 'paid' ||
    order.payment_status === 'refunded' ||
    order.payment_status === 'partially_refunded'
  ) {
    return new ApiError('payment_not_required', 'This order is already paid.');
  }
  return new ApiError('invalid_transition', `The order is ${order.status}; it can no longer be paid.`);
}

function newOrderId(environment: 'live' | 'sandbox', at: Date): string {
  return newTimeOrderedId(environment === 'sandbox' ? 'sbx' : 'ord', at.getTime());
}

/** Seven characters without look-alikes (no 0/O, 1/I), e.g. `K7P-4QX`: short enough to read out. */
function orderNumber(): string {
  const raw = randomToken(8);
  let out = '';
  for (let i = 0; i < 6; i++) out += ORDER_NUMBER_ALPHABET[raw.charCodeAt(i) % ORDER_NUMBER_ALPHABET.length];
  return `${out.slice(0, 3)}-${out.slice(3)}`;
}

function tipInMinor(tip: number, currency: Parameters<typeof fromMajor>[1]): number {
  let minor: number;
  try {
    minor = fromMajor(tip, currency);
  } catch (err) {
    throw new ApiError('invalid_amount', `tip${(err as Error).message}`, { param: 'tip' });
  }
  if (minor > maxTipMinor(currency))
    throw new ApiError(
      'invalid_amount',
      `tip must be at most ${MAX_TIP[currency]} ${currency} (the store's currency).`,
      { param: 'tip' },
    );
  return minor;
}

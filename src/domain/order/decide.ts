import { ApiError } from '../errors.js';
import { formatMoney } from '../money.js';
import type { AcceptedBy, OrderEvent, OrderPlacedData, Rider } from './events.js';
import type { OrderSnapshot } from './machine.js';
import { nextSnapshot } from './step.js';
import type { OrderState, OrderView } from './state.js';
import { extend } from '../../shared/objects.js';

export { ORDER_STATUSES, FINAL_STATUSES, PAYMENT_STATUSES } from './machine.js';
export type { OrderStatus, PaymentStatus } from './machine.js';

/** A priced order ready to be placed; the service fills in the timestamps. */
export type NewOrder = Omit<OrderPlacedData, 'placed_at' | 'at'>;

export type OrderCommand =
  | { type: 'place'; order: NewOrder }
  | { type: 'cancelByPartner'; reason: string | null }
  | { type: 'accept'; by: AcceptedBy }
  | { type: 'startPreparing' }
  | { type: 'markReady' }
  | { type: 'assignRider'; rider: Rider }
  | { type: 'pickUp' }
  | { type: 'deliver' }
  | { type: 'collect' }
  | { type: 'cancelByRestaurant'; reason: string | null; by?: 'restaurant' | 'support' }
  /** Without an amount, refunds whatever has not been refunded yet. */
  | { type: 'refund'; amount?: number }
  | { type: 'recordPaymentSucceeded'; amount: number; provider_ref: string }
  | { type: 'recordPaymentFailed'; reason: string }
  | { type: 'sandboxAdvance' };

/** The rider a sandbox order gets when it is advanced past `ready` without one. */
export const SANDBOX_RIDER: Rider = { name: 'Sandbox Rider', phone: '+96550000000', vehicle: 'motorbike' };

/** Whether the order machine accepts `fact` now: the one answer to "may this happen?". */
export function can(state: OrderState, fact: OrderEvent): boolean {
  return state.snapshot.can(fact);
}

/** Whether the machine would take a payment of the order's total now: an unpaid card order, still placed. */
export function awaitsPayment(state: OrderState): boolean {
  const order = state.order;
  return (
    !!order &&
    can(state, {
      type: 'PaymentSucceeded',
      data: { amount: order.pricing.total, provider_ref: '', at: order.updated_at },
    })
  );
}

/** The `provider_ref` of the payment of a card order whose total is 0: no provider was involved. */
export const NOTHING_DUE = 'nothing_due';

/**
 * Decides a command against the folded stream: returns the events to append, or throws ApiError.
 * Every event is checked with `snapshot.can` (folded in sequence), so the machine alone decides
 * what is allowed; the code here only builds the candidate facts and explains refusals.
 */
export function decide(state: OrderState, command: OrderCommand, at: string): OrderEvent[] {
  if (command.type === 'place') {
    const placed: OrderEvent = { type: 'OrderPlaced', data: extend(command.order, { placed_at: at, at }) };
    // A card order whose offers cover everything has nothing to charge: no provider takes a
    // payment of 0, and the restaurant accepts a card order only once it is paid.
    const nothingDue: OrderEvent[] =
      command.order.payment_method === 'card' && command.order.pricing.total === 0
        ? [{ type: 'PaymentSucceeded', data: { amount: 0, provider_ref: NOTHING_DUE, at } }]
        : [];
    return emit(
      state,
      [placed, ...nothingDue],
      () => new ApiError('invalid_transition', 'The order has already been placed.'),
    );
  }
  const order = state.order;
  if (!order) throw new ApiError('order_not_found');
  switch (command.type) {
    case 'cancelByPartner':
      return emit(
        state,
        [{ type: 'OrderCancelled', data: { by: 'partner', reason: command.reason, at } }],
        () =>
          new ApiError(
            'order_not_cancellable',
            `The order is ${order.status}; only placed or confirmed orders can be cancelled.`,
          ),
      );
    case 'accept':
      return emit(state, [{ type: 'OrderAccepted', data: { by: command.by, at } }], () =>
        awaitsPayment(state) ? paymentPending(order) : refused(order, 'accept'),
      );
    case 'startPreparing':
      return emit(state, [{ type: 'OrderPreparationStarted', data: { at } }], () => refused(order, 'start preparing'));
    case 'markReady':
      return emit(state, [{ type: 'OrderPacked', data: { at } }], () => refused(order, 'mark ready'));
    case 'assignRider':
      return emit(state, [{ type: 'RiderAssigned', data: { rider: command.rider, at } }], () =>
        order.fulfilment === 'pickup' ? invalid('Pickup orders have no rider.') : refused(order, 'assign a rider to'),
      );
    case 'pickUp':
      return emit(state, [{ type: 'OrderPickedUp', data: { at } }], () =>
        order.fulfilment === 'pickup'
          ? invalid('Pickup orders are collected by the customer, not picked up by a rider.')
          : order.status === 'ready' && !order.rider
            ? invalid('No rider is assigned to this order yet.')
            : refused(order, 'pick up'),
      );
    case 'deliver':
      return emit(state, [{ type: 'OrderDelivered', data: { at } }], () =>
        order.fulfilment === 'pickup'
          ? invalid('Pickup orders are collected, not delivered.')
          : refused(order, 'deliver'),
      );
    case 'collect':
      return emit(state, [{ type: 'OrderCollected', data: { at } }], () =>
        order.fulfilment === 'delivery'
          ? invalid('Delivery orders are delivered, not collected.')
          : refused(order, 'collect'),
      );
    case 'cancelByRestaurant':
      return emit(
        state,
        [{ type: 'OrderCancelled', data: { by: command.by ?? 'restaurant', reason: command.reason, at } }],
        () => refused(order, 'cancel'),
      );
    case 'refund':
      return refund(state, order, command.amount, at);
    case 'recordPaymentSucceeded': {
      const { amount, provider_ref } = command;
      // If a payment of the total would be accepted, the amount is at fault.
      return emit(state, [{ type: 'PaymentSucceeded', data: { amount, provider_ref, at } }], () =>
        awaitsPayment(state)
          ? new ApiError(
              'validation_error',
              `Payment of ${amount} does not match the order total ${order.pricing.total}.`,
              {
                param: 'amount',
              },
            )
          : paymentRefused(order),
      );
    }
    case 'recordPaymentFailed':
      return emit(state, [{ type: 'PaymentFailed', data: { reason: command.reason, at } }], () =>
        paymentRefused(order),
      );
    case 'sandboxAdvance':
      return sandboxAdvance(state, order, at);
  }
}

function refund(state: OrderState, order: OrderView, requested: number | undefined, at: string): OrderEvent[] {
  const remaining = order.pricing.total - order.refunded_total;
  const amount = requested ?? remaining;
  const event = (value: number): OrderEvent => ({
    type: 'OrderRefunded',
    data: { amount: value, refunded_total: order.refunded_total + value, at },
  });
  return emit(state, [event(amount)], () => {
    // If the smallest refund would be accepted, the order is refundable and the amount is at fault.
    if (remaining > 0 && can(state, event(1))) {
      const range = `${formatMoney(1, order.currency)} to ${formatMoney(remaining, order.currency)}`;
      return new ApiError('invalid_refund', `The refund must be an amount from ${range}.`, { param: 'amount' });
    }
    if (order.payment_status !== 'paid' && order.payment_status !== 'partially_refunded') {
      return invalid(`Nothing to refund: the payment status is ${order.payment_status}.`);
    }
    if (remaining === 0) return invalid('Nothing to refund: the order cost nothing.');
    return refused(order, 'refund');
  });
}

function sandboxAdvance(state: OrderState, order: OrderView, at: string): OrderEvent[] {
  if (order.environment !== 'sandbox') throw new ApiError('sandbox_only', 'Only sandbox orders can be advanced.');
  const next = sandboxPath(at).find((facts) => accepts(state.snapshot, facts));
  if (next) return next;
  if (awaitsPayment(state)) throw paymentPending(order);
  throw invalid(`The order is at the end of its path (status ${order.status}); it cannot be advanced.`);
}

/**
 * The facts that move an order one status along its fulfilment path, in path order: an advance
 * appends the first of them the machine accepts. A delivery that leaves without a rider gets the
 * sandbox rider first; one with a rider keeps it.
 */
function sandboxPath(at: string): OrderEvent[][] {
  return [
    [{ type: 'OrderAccepted', data: { by: 'sandbox', at } }],
    [{ type: 'OrderPreparationStarted', data: { at } }],
    [{ type: 'OrderPacked', data: { at } }],
    [{ type: 'OrderCollected', data: { at } }],
    [{ type: 'OrderPickedUp', data: { at } }],
    [
      { type: 'RiderAssigned', data: { rider: SANDBOX_RIDER, at } },
      { type: 'OrderPickedUp', data: { at } },
    ],
    [{ type: 'OrderDelivered', data: { at } }],
  ];
}

function emit(state: OrderState, events: OrderEvent[], explain: () => ApiError): OrderEvent[] {
  if (!accepts(state.snapshot, events)) throw explain();
  return events;
}

/**
 * Whether the machine accepts `events` one after the other from `snapshot`. The machine is stepped
 * only to check the next event: most commands decide one event, and the command handler steps
 * it anyway once it is appended (a step is most of what xstate allocates per order).
 */
function accepts(snapshot: OrderSnapshot, events: readonly OrderEvent[]): boolean {
  for (let i = 0; i < events.length; i++) {
    if (!snapshot.can(events[i]!)) return false;
    if (i < events.length - 1) snapshot = nextSnapshot(snapshot, events[i]!);
  }
  return true;
}

function paymentPending(order: OrderView): ApiError {
  const how =
    order.environment === 'sandbox'
      ? `pay it with POST /v1/sandbox/orders/${order.order_id}/simulate and {"action": "payment_succeeded"}, or through its payment link (POST /v1/orders/${order.order_id}/payment)`
      : `the payment provider's outcome is recorded with the operations API's pay (POST /internal/orders/${order.order_id}/pay)`;
  return new ApiError(
    'payment_pending',
    `The card payment has not succeeded yet (payment status ${order.payment_status}); the order cannot be confirmed until it is paid: ${how}.`,
  );
}

function paymentRefused(order: OrderView): ApiError {
  if (order.payment_method === 'cash') {
    return new ApiError('payment_not_required', 'Cash orders are paid on delivery or collection, not online.');
  }
  if (order.status === 'placed' && order.payment_status === 'paid') return invalid('The order is already paid.');
  return refused(order, 'record a payment for');
}

function refused(order: OrderView, action: string): ApiError {
  return invalid(`Cannot ${action} an order with status ${order.status}.`);
}

function invalid(message: string): ApiError {
  return new ApiError('invalid_transition', message);
}

import { assertEvent, assign, setup, type SnapshotFrom } from 'xstate';
import type { Currency } from '../money.js';
import type { CancelledBy, Fulfilment, OrderEvent, PaymentMethod, Rider } from './events.js';

/**
 * The order machine: the one place that says which status follows which fact.
 * Its events are the stored events; it has no actors, timers or side effects, and is driven only
 * through the pure `initialTransition` / `transition` functions (see state.ts and decide.ts).
 * docs/order-machine.md shows it as a diagram generated from this config (diagram.ts).
 */

/** Public order statuses (spec: stable across API versions). */
export const ORDER_STATUSES = [
  'placed',
  'confirmed',
  'preparing',
  'ready',
  'out_for_delivery',
  'delivered',
  'completed',
  'cancelled',
  'partially_refunded',
  'refunded',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Statuses an order does not progress from (only refunds may still follow). */
export const FINAL_STATUSES = [
  'delivered',
  'completed',
  'cancelled',
  'partially_refunded',
  'refunded',
] as const satisfies readonly OrderStatus[];

export const PAYMENT_STATUSES = ['pending', 'paid', 'failed', 'refunded', 'partially_refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export interface Cancellation {
  by: CancelledBy;
  reason: string | null;
}

/** What the guards need; the fields are null only before OrderPlaced. */
export interface OrderContext {
  fulfilment: Fulfilment | null;
  payment_method: PaymentMethod | null;
  payment_status: PaymentStatus | null;
  currency: Currency | null;
  total: number;
  refunded_total: number;
  rider: Rider | null;
  cancellation: Cancellation | null;
}

const refundIsConsistent = (context: OrderContext, event: OrderEvent): boolean =>
  event.type === 'OrderRefunded' &&
  (context.payment_status === 'paid' || context.payment_status === 'partially_refunded') &&
  Number.isSafeInteger(event.data.amount) &&
  event.data.amount > 0 &&
  event.data.refunded_total === context.refunded_total + event.data.amount &&
  event.data.refunded_total <= context.total;

const awaitingCardPayment = (context: OrderContext): boolean =>
  context.payment_method === 'card' && (context.payment_status === 'pending' || context.payment_status === 'failed');

/** What a guard or a context update is given: the context before the event, and the event. */
export interface MachineArgs {
  context: OrderContext;
  event: OrderEvent;
}

/**
 * The machine's guards and context updates as plain pure functions, named as the transitions below
 * name them. xstate runs them through `setup`; the read side's replay of stored events
 * (transition-table.ts) calls the same functions, so neither holds a second copy of a rule.
 */
export const orderGuards = {
  paymentAllowsAcceptance: ({ context }: MachineArgs) =>
    context.payment_method === 'cash' || context.payment_status === 'paid',
  isDelivery: ({ context }: MachineArgs) => context.fulfilment === 'delivery',
  isPickup: ({ context }: MachineArgs) => context.fulfilment === 'pickup',
  deliveryWithRider: ({ context }: MachineArgs) => context.fulfilment === 'delivery' && context.rider !== null,
  notByPartner: ({ event }: MachineArgs) => event.type === 'OrderCancelled' && event.data.by !== 'partner',
  cardAwaitingPayment: ({ context }: MachineArgs) => awaitingCardPayment(context),
  paysTotalOfUnpaidCard: ({ context, event }: MachineArgs) =>
    awaitingCardPayment(context) && event.type === 'PaymentSucceeded' && event.data.amount === context.total,
  refundCompletesTotal: ({ context, event }: MachineArgs) =>
    refundIsConsistent(context, event) && event.type === 'OrderRefunded' && event.data.refunded_total === context.total,
  refundLeavesBalance: ({ context, event }: MachineArgs) =>
    refundIsConsistent(context, event) && event.type === 'OrderRefunded' && event.data.refunded_total < context.total,
} satisfies Record<string, (args: MachineArgs) => boolean>;

export const orderContextUpdates = {
  recordPlacement: ({ event }: MachineArgs): Partial<OrderContext> => {
    assertEvent(event, 'OrderPlaced');
    const d = event.data;
    return {
      fulfilment: d.fulfilment,
      payment_method: d.payment_method,
      payment_status: 'pending',
      currency: d.currency,
      total: d.pricing.total,
    };
  },
  assignRider: ({ event }: MachineArgs): Partial<OrderContext> => {
    assertEvent(event, 'RiderAssigned');
    return { rider: event.data.rider };
  },
  recordCancellation: ({ event }: MachineArgs): Partial<OrderContext> => {
    assertEvent(event, 'OrderCancelled');
    return { cancellation: { by: event.data.by, reason: event.data.reason } };
  },
  markPaid: (): Partial<OrderContext> => ({ payment_status: 'paid' }),
  markPaymentFailed: (): Partial<OrderContext> => ({ payment_status: 'failed' }),
  // Cash is collected at the door or the counter; card orders are already paid by then.
  settleCash: ({ context }: MachineArgs): Partial<OrderContext> =>
    context.payment_method === 'cash' ? { payment_status: 'paid' } : {},
  recordFullRefund: ({ event }: MachineArgs): Partial<OrderContext> => {
    assertEvent(event, 'OrderRefunded');
    return { refunded_total: event.data.refunded_total, payment_status: 'refunded' };
  },
  recordPartialRefund: ({ event }: MachineArgs): Partial<OrderContext> => {
    assertEvent(event, 'OrderRefunded');
    return { refunded_total: event.data.refunded_total, payment_status: 'partially_refunded' };
  },
} satisfies Record<string, (args: MachineArgs) => Partial<OrderContext>>;

const u = orderContextUpdates;
export const orderMachine = setup({
  // XState's typing idiom: the assertion is what gives the machine its context and event types.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  types: {} as { context: OrderContext; events: OrderEvent },
  guards: orderGuards,
  actions: {
    recordPlacement: assign(u.recordPlacement),
    assignRider: assign(u.assignRider),
    recordCancellation: assign(u.recordCancellation),
    markPaid: assign(u.markPaid),
    markPaymentFailed: assign(u.markPaymentFailed),
    settleCash: assign(u.settleCash),
    recordFullRefund: assign(u.recordFullRefund),
    recordPartialRefund: assign(u.recordPartialRefund),
  },
}).createMachine({
  id: 'order',
  initial: 'new',
  context: {
    fulfilment: null,
    payment_method: null,
    payment_status: null,
    currency: null,
    total: 0,
    refunded_total: 0,
    rider: null,
    cancellation: null,
  },
  states: {
    new: {
      on: { OrderPlaced: { target: 'placed', actions: 'recordPlacement' } },
    },
    placed: {
      on: {
        OrderAccepted: { target: 'confirmed', guard: 'paymentAllowsAcceptance' },
        OrderCancelled: { target: 'cancelled', actions: 'recordCancellation' },
        PaymentSucceeded: { guard: 'paysTotalOfUnpaidCard', actions: 'markPaid' },
        PaymentFailed: { guard: 'cardAwaitingPayment', actions: 'markPaymentFailed' },
      },
    },
    confirmed: {
      on: {
        OrderPreparationStarted: { target: 'preparing' },
        RiderAssigned: { guard: 'isDelivery', actions: 'assignRider' },
        OrderCancelled: { target: 'cancelled', actions: 'recordCancellation' },
      },
    },
    preparing: {
      on: {
        OrderPacked: { target: 'ready' },
        RiderAssigned: { guard: 'isDelivery', actions: 'assignRider' },
        OrderCancelled: { target: 'cancelled', guard: 'notByPartner', actions: 'recordCancellation' },
      },
    },
    ready: {
      on: {
        OrderPickedUp: { target: 'out_for_delivery', guard: 'deliveryWithRider' },
        OrderCollected: { target: 'completed', guard: 'isPickup', actions: 'settleCash' },
        RiderAssigned: { guard: 'isDelivery', actions: 'assignRider' },
        OrderCancelled: { target: 'cancelled', guard: 'notByPartner', actions: 'recordCancellation' },
      },
    },
    out_for_delivery: {
      on: {
        OrderDelivered: { target: 'delivered', actions: 'settleCash' },
        OrderCancelled: { target: 'cancelled', guard: 'notByPartner', actions: 'recordCancellation' },
      },
    },
    delivered: { on: { OrderRefunded: refundTransitions() } },
    completed: { on: { OrderRefunded: refundTransitions() } },
    cancelled: { on: { OrderRefunded: refundTransitions() } },
    partially_refunded: { on: { OrderRefunded: refundTransitions() } },
    refunded: { type: 'final' },
  },
});

function refundTransitions() {
  return [
    { target: 'refunded', guard: 'refundCompletesTotal', actions: 'recordFullRefund' },
    { target: 'partially_refunded', guard: 'refundLeavesBalance', actions: 'recordPartialRefund' },
  ] as const;
}

export type OrderMachine = typeof orderMachine;
export type OrderSnapshot = SnapshotFrom<OrderMachine>;

/** The public status of a snapshot, or null before the order is placed. */
export function statusOf(snapshot: Pick<OrderSnapshot, 'value'>): OrderStatus | null {
  const value = snapshot.value;
  return value === 'new' ? null : value;
}

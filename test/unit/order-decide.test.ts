import { describe, expect, it } from 'vitest';
import { ApiError, type ErrorCode } from '../../src/domain/errors.js';
import {
  awaitsPayment,
  decide,
  NOTHING_DUE,
  SANDBOX_RIDER,
  type NewOrder,
  type OrderCommand,
} from '../../src/domain/order/decide.js';
import type { OrderEvent } from '../../src/domain/order/events.js';
import { ORDER_STATUSES, type OrderStatus } from '../../src/domain/order/machine.js';
import { evolve, initialState, rehydrate, type OrderState } from '../../src/domain/order/state.js';
import { DeciderSpecification } from '../support/decider-spec.js';
import { at, ev, history, placedData, RIDER, TOTAL } from './order-fixtures.js';

const NOW = at(30);

/** given(stream).when(command).then(new events) | .thenThrows(ApiError, refused(code)). */
const given = DeciderSpecification.for({
  decide: (command: OrderCommand, state: OrderState) => decide(state, command, NOW),
  evolve,
  initialState,
});

/** The refusal expected: an ApiError with `code`, its message matching `message` when given. */
const refused = (code: ErrorCode, message?: RegExp) => (error: ApiError) => {
  expect(error.code).toBe(code);
  if (message) expect(error.message).toMatch(message);
};

/** The status after appending the decided events; the error code if refused. */
function outcome(events: OrderEvent[], command: OrderCommand): string {
  const decided = given(events).when(command).decided();
  if (!('error' in decided)) return decided.state.order!.status;
  if (decided.error instanceof ApiError) return decided.error.code;
  throw decided.error;
}

const ACTIONS = {
  cancelP: { type: 'cancelByPartner', reason: 'changed my mind' },
  accept: { type: 'accept', by: 'restaurant' },
  start: { type: 'startPreparing' },
  ready: { type: 'markReady' },
  rider: { type: 'assignRider', rider: RIDER },
  pickUp: { type: 'pickUp' },
  deliver: { type: 'deliver' },
  collect: { type: 'collect' },
  cancelR: { type: 'cancelByRestaurant', reason: 'out of stock' },
  refund: { type: 'refund' },
  paid: { type: 'recordPaymentSucceeded', amount: TOTAL, provider_ref: 'pi_2' },
  failed: { type: 'recordPaymentFailed', reason: 'card_declined' },
  advance: { type: 'sandboxAdvance' },
} as const satisfies Record<string, OrderCommand>;
type Action = keyof typeof ACTIONS;
const ACTION_ORDER = Object.keys(ACTIONS) as Action[];

const NC = 'order_not_cancellable';
const IT = 'invalid_transition';
const PP = 'payment_pending';
const NR = 'payment_not_required';

const d = history.cashDelivery;
const p = history.cashPickup;
const c = history.card;
const partlyRefunded = (h: OrderEvent[]) => [...h, ev.refunded(1000, 1000)];
const fullyRefunded = (h: OrderEvent[]) => [...h, ev.refunded(TOTAL, TOTAL)];
const cancelled = (h: OrderEvent[]) => [...h, ev.cancelled('partner', 2)];
const cardDelivered = [
  ...c.paid,
  ev.accepted(2),
  ev.started(3),
  ev.packed(4),
  ev.rider(5),
  ev.pickedUp(6),
  ev.delivered(7),
];

/**
 * The expected outcome of every action in every status, written out by hand from the spec and the
 * brief (not derived from the machine): the status after the action, or the error code.
 */
const TABLE: [row: string, status: OrderStatus, events: OrderEvent[], outcomes: string[]][] = [
  //                                                         cancelP      accept       start        ready    rider        pickUp              deliver      collect      cancelR      refund      paid      failed    advance
  [
    'cash delivery placed',
    'placed',
    d.placed,
    ['cancelled', 'confirmed', IT, IT, IT, IT, IT, IT, 'cancelled', IT, NR, NR, 'confirmed'],
  ],
  [
    'cash delivery confirmed',
    'confirmed',
    d.confirmed,
    ['cancelled', IT, 'preparing', IT, 'confirmed', IT, IT, IT, 'cancelled', IT, NR, NR, 'preparing'],
  ],
  [
    'cash delivery preparing',
    'preparing',
    d.preparing,
    [NC, IT, IT, 'ready', 'preparing', IT, IT, IT, 'cancelled', IT, NR, NR, 'ready'],
  ],
  [
    'cash delivery ready',
    'ready',
    d.ready,
    [NC, IT, IT, IT, 'ready', IT, IT, IT, 'cancelled', IT, NR, NR, 'out_for_delivery'],
  ],
  [
    'cash delivery ready + rider',
    'ready',
    d.readyWithRider,
    [NC, IT, IT, IT, 'ready', 'out_for_delivery', IT, IT, 'cancelled', IT, NR, NR, 'out_for_delivery'],
  ],
  [
    'cash out_for_delivery',
    'out_for_delivery',
    d.out_for_delivery,
    [NC, IT, IT, IT, IT, IT, 'delivered', IT, 'cancelled', IT, NR, NR, 'delivered'],
  ],
  ['cash delivered', 'delivered', d.delivered, [NC, IT, IT, IT, IT, IT, IT, IT, IT, 'refunded', NR, NR, IT]],
  ['cash delivery cancelled', 'cancelled', cancelled(d.placed), [NC, IT, IT, IT, IT, IT, IT, IT, IT, IT, NR, NR, IT]],
  [
    'cash delivered, part refund',
    'partially_refunded',
    partlyRefunded(d.delivered),
    [NC, IT, IT, IT, IT, IT, IT, IT, IT, 'refunded', NR, NR, IT],
  ],
  [
    'cash delivered, refunded',
    'refunded',
    fullyRefunded(d.delivered),
    [NC, IT, IT, IT, IT, IT, IT, IT, IT, IT, NR, NR, IT],
  ],
  [
    'cash pickup placed',
    'placed',
    p.placed,
    ['cancelled', 'confirmed', IT, IT, IT, IT, IT, IT, 'cancelled', IT, NR, NR, 'confirmed'],
  ],
  [
    'cash pickup confirmed',
    'confirmed',
    p.confirmed,
    ['cancelled', IT, 'preparing', IT, IT, IT, IT, IT, 'cancelled', IT, NR, NR, 'preparing'],
  ],
  [
    'cash pickup preparing',
    'preparing',
    p.preparing,
    [NC, IT, IT, 'ready', IT, IT, IT, IT, 'cancelled', IT, NR, NR, 'ready'],
  ],
  [
    'cash pickup ready',
    'ready',
    p.ready,
    [NC, IT, IT, IT, IT, IT, IT, 'completed', 'cancelled', IT, NR, NR, 'completed'],
  ],
  ['cash pickup completed', 'completed', p.completed, [NC, IT, IT, IT, IT, IT, IT, IT, IT, 'refunded', NR, NR, IT]],
  ['cash pickup cancelled', 'cancelled', cancelled(p.placed), [NC, IT, IT, IT, IT, IT, IT, IT, IT, IT, NR, NR, IT]],
  [
    'cash pickup, part refund',
    'partially_refunded',
    partlyRefunded(p.completed),
    [NC, IT, IT, IT, IT, IT, IT, IT, IT, 'refunded', NR, NR, IT],
  ],
  [
    'cash pickup, refunded',
    'refunded',
    fullyRefunded(p.completed),
    [NC, IT, IT, IT, IT, IT, IT, IT, IT, IT, NR, NR, IT],
  ],
  [
    'card placed, pending',
    'placed',
    c.pending,
    ['cancelled', PP, IT, IT, IT, IT, IT, IT, 'cancelled', IT, 'placed', 'placed', PP],
  ],
  [
    'card placed, failed',
    'placed',
    c.failed,
    ['cancelled', PP, IT, IT, IT, IT, IT, IT, 'cancelled', IT, 'placed', 'placed', PP],
  ],
  [
    'card placed, paid',
    'placed',
    c.paid,
    ['cancelled', 'confirmed', IT, IT, IT, IT, IT, IT, 'cancelled', IT, IT, IT, 'confirmed'],
  ],
  [
    'card confirmed',
    'confirmed',
    [...c.paid, ev.accepted(2)],
    ['cancelled', IT, 'preparing', IT, 'confirmed', IT, IT, IT, 'cancelled', IT, IT, IT, 'preparing'],
  ],
  ['card delivered', 'delivered', cardDelivered, [NC, IT, IT, IT, IT, IT, IT, IT, IT, 'refunded', IT, IT, IT]],
  ['card cancelled unpaid', 'cancelled', cancelled(c.pending), [NC, IT, IT, IT, IT, IT, IT, IT, IT, IT, IT, IT, IT]],
  ['card cancelled paid', 'cancelled', cancelled(c.paid), [NC, IT, IT, IT, IT, IT, IT, IT, IT, 'refunded', IT, IT, IT]],
];

describe('decide: every action in every status', () => {
  it('covers every public status', () => {
    expect(new Set(TABLE.map(([, status]) => status))).toEqual(new Set(ORDER_STATUSES));
  });

  const cases = TABLE.flatMap(([row, status, events, outcomes]) =>
    ACTION_ORDER.map((action, i) => ({ row, status, events, action, expected: outcomes[i] })),
  );
  it.each(cases)('$row: $action -> $expected', ({ status, events, action, expected }) => {
    expect(rehydrate(events).order!.status).toBe(status);
    expect(outcome(events, ACTIONS[action])).toBe(expected);
  });

  it('answers order_not_found for every action on an order that does not exist', () => {
    for (const action of ACTION_ORDER) given([]).when(ACTIONS[action]).thenThrows(ApiError, refused('order_not_found'));
  });
});

describe('awaitsPayment: whether the machine would take a payment of the total now', () => {
  it('holds for exactly the unpaid card orders that are still placed (payment links, payment_pending)', () => {
    const awaiting = TABLE.filter(([, , events]) => awaitsPayment(rehydrate(events))).map(([row]) => row);
    expect(awaiting).toEqual(['card placed, pending', 'card placed, failed']);
    expect(awaitsPayment(initialState())).toBe(false);
  });
});

describe('decide: placing', () => {
  const { placed_at: _p, at: _a, ...order } = placedData();
  const newOrder: NewOrder = order;

  it('places a new order, stamping placed_at and at', () => {
    given([])
      .when({ type: 'place', order: newOrder })
      .then([{ type: 'OrderPlaced', data: { ...newOrder, placed_at: NOW, at: NOW } }]);
  });

  it('places a card order whose total is 0 as paid: nothing is due, so no provider is asked', () => {
    const free = { ...newOrder, payment_method: 'card' as const, pricing: { ...newOrder.pricing, total: 0 } };
    given([])
      .when({ type: 'place', order: free })
      .then([
        { type: 'OrderPlaced', data: { ...free, placed_at: NOW, at: NOW } },
        { type: 'PaymentSucceeded', data: { amount: 0, provider_ref: NOTHING_DUE, at: NOW } },
      ]);
  });

  it('places a cash order whose total is 0, and a card order with something to pay, without a payment', () => {
    for (const order of [
      { ...newOrder, payment_method: 'cash' as const, pricing: { ...newOrder.pricing, total: 0 } },
      { ...newOrder, payment_method: 'card' as const },
    ])
      given([])
        .when({ type: 'place', order })
        .then([{ type: 'OrderPlaced', data: { ...order, placed_at: NOW, at: NOW } }]);
  });

  it('refuses to place twice on one stream', () => {
    given(d.placed)
      .when({ type: 'place', order: newOrder })
      .thenThrows(ApiError, refused(IT, /already been placed/));
  });
});

describe('decide: the delivery and pickup paths', () => {
  it('emits the facts of each step with the command time', () => {
    given(d.placed)
      .when(ACTIONS.accept)
      .then([{ type: 'OrderAccepted', data: { by: 'restaurant', at: NOW } }]);
    given(d.confirmed)
      .when(ACTIONS.start)
      .then([{ type: 'OrderPreparationStarted', data: { at: NOW } }]);
    given(d.preparing)
      .when(ACTIONS.ready)
      .then([{ type: 'OrderPacked', data: { at: NOW } }]);
    given(d.ready)
      .when(ACTIONS.rider)
      .then([{ type: 'RiderAssigned', data: { rider: RIDER, at: NOW } }]);
    given(d.readyWithRider)
      .when(ACTIONS.pickUp)
      .then([{ type: 'OrderPickedUp', data: { at: NOW } }]);
    given(d.out_for_delivery)
      .when(ACTIONS.deliver)
      .then([{ type: 'OrderDelivered', data: { at: NOW } }]);
    given(p.ready)
      .when(ACTIONS.collect)
      .then([{ type: 'OrderCollected', data: { at: NOW } }]);
  });

  it('explains refusals by naming the status and the action', () => {
    given(d.delivered)
      .when(ACTIONS.start)
      .thenThrows(ApiError, refused(IT, /Cannot start preparing an order with status delivered/));
    given(d.ready)
      .when(ACTIONS.pickUp)
      .thenThrows(ApiError, refused(IT, /No rider is assigned/));
    given(p.ready)
      .when(ACTIONS.pickUp)
      .thenThrows(ApiError, refused(IT, /Pickup orders are collected/));
    given(p.confirmed)
      .when(ACTIONS.rider)
      .thenThrows(ApiError, refused(IT, /Pickup orders have no rider/));
    given(d.readyWithRider)
      .when(ACTIONS.collect)
      .thenThrows(ApiError, refused(IT, /Delivery orders are delivered/));
  });
});

describe('decide: cancelling', () => {
  it('lets the partner cancel a placed or confirmed order, once', () => {
    given(d.confirmed)
      .when(ACTIONS.cancelP)
      .then([{ type: 'OrderCancelled', data: { by: 'partner', reason: 'changed my mind', at: NOW } }]);
    given(cancelled(d.placed))
      .when(ACTIONS.cancelP)
      .thenThrows(ApiError, refused(NC, /cancelled; only placed or confirmed/));
    given(d.preparing)
      .when(ACTIONS.cancelP)
      .thenThrows(ApiError, refused(NC, /preparing/));
  });

  it('lets the restaurant or support cancel from every non-final status', () => {
    const nonFinal = [d.placed, d.confirmed, d.preparing, d.readyWithRider, d.out_for_delivery, p.ready];
    for (const events of nonFinal) {
      given(events)
        .when({ type: 'cancelByRestaurant', reason: 'closed' })
        .then([{ type: 'OrderCancelled', data: { by: 'restaurant', reason: 'closed', at: NOW } }]);
      given(events)
        .when({ type: 'cancelByRestaurant', reason: null, by: 'support' })
        .then([{ type: 'OrderCancelled', data: { by: 'support', reason: null, at: NOW } }]);
    }
    given(d.delivered)
      .when(ACTIONS.cancelR)
      .thenThrows(ApiError, refused(IT, /Cannot cancel an order with status delivered/));
  });
});

describe('decide: payments', () => {
  it('confirms a card order only once paid, and says so', () => {
    given(c.pending)
      .when(ACTIONS.accept)
      .thenThrows(ApiError, refused(PP, /payment status pending/));
    given(c.failed)
      .when(ACTIONS.accept)
      .thenThrows(ApiError, refused(PP, /payment status failed/));
    given(c.paid)
      .when(ACTIONS.accept)
      .then([{ type: 'OrderAccepted', data: { by: 'restaurant', at: NOW } }]);
  });

  it('records a failure, then a successful retry', () => {
    given(c.pending)
      .when(ACTIONS.failed)
      .then([{ type: 'PaymentFailed', data: { reason: 'card_declined', at: NOW } }]);
    given(c.failed)
      .when(ACTIONS.paid)
      .then([{ type: 'PaymentSucceeded', data: { amount: TOTAL, provider_ref: 'pi_2', at: NOW } }]);
    expect(rehydrate([...c.failed, ev.paid(2)]).order!.payment_status).toBe('paid');
  });

  it('refuses a second payment, a wrong amount, payments on cancelled and on cash orders', () => {
    given(c.paid)
      .when(ACTIONS.paid)
      .thenThrows(ApiError, refused(IT, /already paid/));
    given(c.pending)
      .when({ ...ACTIONS.paid, amount: TOTAL - 1 })
      .thenThrows(ApiError, refused('validation_error', /does not match/));
    given(cancelled(c.pending))
      .when(ACTIONS.paid)
      .thenThrows(ApiError, refused(IT, /status cancelled/));
    given(d.placed).when(ACTIONS.paid).thenThrows(ApiError, refused(NR));
    given(d.placed).when(ACTIONS.failed).thenThrows(ApiError, refused(NR));
  });

  it('marks cash paid on delivery and on collection', () => {
    expect(rehydrate(d.out_for_delivery).order!.payment_status).toBe('pending');
    expect(rehydrate(d.delivered).order!.payment_status).toBe('paid');
    expect(rehydrate(p.completed).order!.payment_status).toBe('paid');
  });
});

describe('decide: refunds', () => {
  it('refunds the remainder when no amount is given', () => {
    given(d.delivered)
      .when({ type: 'refund' })
      .then([{ type: 'OrderRefunded', data: { amount: TOTAL, refunded_total: TOTAL, at: NOW } }]);
    given(partlyRefunded(d.delivered))
      .when({ type: 'refund' })
      .then([{ type: 'OrderRefunded', data: { amount: TOTAL - 1000, refunded_total: TOTAL, at: NOW } }]);
  });

  it('refunds part, then the rest, and the view follows', () => {
    given(d.delivered)
      .when({ type: 'refund', amount: 1000 })
      .then([{ type: 'OrderRefunded', data: { amount: 1000, refunded_total: 1000, at: NOW } }]);
    const view = rehydrate([...partlyRefunded(d.delivered), ev.refunded(TOTAL - 1000, TOTAL, 9)]).order!;
    expect([view.status, view.payment_status, view.refunded_total]).toEqual(['refunded', 'refunded', TOTAL]);
  });

  it('refuses zero, fractional and over-refunds with invalid_refund', () => {
    for (const amount of [0, -5, 2.5, TOTAL + 1]) {
      given(d.delivered)
        .when({ type: 'refund', amount })
        .thenThrows(ApiError, refused('invalid_refund', /from 0\.001 KWD to 2\.500 KWD\./));
    }
    given(partlyRefunded(d.delivered))
      .when({ type: 'refund', amount: TOTAL - 999 })
      .thenThrows(ApiError, refused('invalid_refund', /from 0\.001 KWD to 1\.500 KWD\./));
  });

  it('refuses refunds of unpaid or unfinished orders with invalid_transition', () => {
    given(cancelled(c.pending))
      .when({ type: 'refund' })
      .thenThrows(ApiError, refused(IT, /payment status is pending/));
    given(d.preparing)
      .when({ type: 'refund', amount: 100 })
      .thenThrows(ApiError, refused(IT, /Nothing to refund/));
    given([...c.paid, ev.accepted(2)])
      .when({ type: 'refund', amount: 100 })
      .thenThrows(ApiError, refused(IT, /Cannot refund an order with status confirmed/));
    given(fullyRefunded(d.delivered))
      .when({ type: 'refund', amount: 1 })
      .thenThrows(ApiError, refused(IT, /payment status is refunded/));
    const free = { payment_method: 'card' as const, pricing: { ...placedData().pricing, discount: 2700, total: 0 } };
    given(cancelled([ev.placed(free), ev.paid(1, 0)]))
      .when({ type: 'refund' })
      .thenThrows(ApiError, refused(IT, /^Nothing to refund: the order cost nothing\.$/));
  });
});

describe('decide: sandbox advance', () => {
  const advanceAll = (events: OrderEvent[]): string[] => {
    const statuses: string[] = [];
    for (;;) {
      const decided = given(events).when(ACTIONS.advance).decided();
      if ('error' in decided) {
        statuses.push((decided.error as ApiError).code);
        return statuses;
      }
      events = [...events, ...decided.events];
      statuses.push(decided.state.order!.status);
    }
  };

  it('walks the delivery path to delivered and the pickup path to completed, then stops', () => {
    expect(advanceAll(d.placed)).toEqual(['confirmed', 'preparing', 'ready', 'out_for_delivery', 'delivered', IT]);
    expect(advanceAll(p.placed)).toEqual(['confirmed', 'preparing', 'ready', 'completed', IT]);
    expect(advanceAll(c.paid)).toEqual(['confirmed', 'preparing', 'ready', 'out_for_delivery', 'delivered', IT]);
  });

  it('assigns a simulated rider before pick-up when none is assigned, and keeps an assigned one', () => {
    given(d.ready)
      .when(ACTIONS.advance)
      .then([
        { type: 'RiderAssigned', data: { rider: SANDBOX_RIDER, at: NOW } },
        { type: 'OrderPickedUp', data: { at: NOW } },
      ]);
    given(d.readyWithRider)
      .when(ACTIONS.advance)
      .then([{ type: 'OrderPickedUp', data: { at: NOW } }]);
    given(d.placed)
      .when(ACTIONS.advance)
      .then([{ type: 'OrderAccepted', data: { by: 'sandbox', at: NOW } }]);
  });

  it('refuses at the end of the path, for unpaid card orders and for live orders', () => {
    given(d.delivered)
      .when(ACTIONS.advance)
      .thenThrows(ApiError, refused(IT, /end of its path \(status delivered\)/));
    given(cancelled(d.placed))
      .when(ACTIONS.advance)
      .thenThrows(ApiError, refused(IT, /end of its path/));
    given(c.pending).when(ACTIONS.advance).thenThrows(ApiError, refused(PP));
    given([ev.placed({ environment: 'live', order_id: 'ord_1' })])
      .when(ACTIONS.advance)
      .thenThrows(ApiError, refused('sandbox_only'));
  });
});

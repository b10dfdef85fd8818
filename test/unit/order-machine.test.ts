import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { toMermaid } from '../../src/domain/order/diagram.js';
import type { OrderEvent } from '../../src/domain/order/events.js';
import {
  FINAL_STATUSES,
  ORDER_STATUSES,
  orderMachine,
  statusOf,
  type OrderSnapshot,
} from '../../src/domain/order/machine.js';
import { OrderHistoryError, rehydrate } from '../../src/domain/order/state.js';
import { at, ev, history, RIDER, TOTAL } from './order-fixtures.js';

/** Folds events through the machine, failing loudly if one is refused. */
function fold(events: OrderEvent[]): OrderSnapshot {
  let [snapshot] = initialTransition(orderMachine);
  for (const event of events) {
    if (!snapshot.can(event)) throw new Error(`${event.type} refused in ${String(snapshot.value)}`);
    [snapshot] = transition(orderMachine, snapshot, event);
  }
  return snapshot;
}
const accepts = (events: OrderEvent[], next: OrderEvent) => fold(events).can(next);

describe('order machine: statuses', () => {
  it('has exactly the public statuses plus the unplaced start state', () => {
    expect(Object.keys(orderMachine.root.states).sort()).toEqual(['new', ...ORDER_STATUSES].sort());
    expect(statusOf(fold([]))).toBeNull();
  });

  it('accepts only OrderPlaced before an order exists', () => {
    expect(accepts([], ev.placed())).toBe(true);
    for (const e of [ev.accepted(), ev.cancelled('restaurant'), ev.paid(), ev.refunded(1, 1)]) {
      expect(accepts([], e)).toBe(false);
    }
    expect(accepts([ev.placed()], ev.placed())).toBe(false);
  });

  it('has no transition without a target and without actions (the fold relies on it: an enabled transition always changes the snapshot)', () => {
    const transitions = Object.values(orderMachine.root.states).flatMap((node) =>
      [...node.transitions.values()].flat(),
    );
    expect(transitions.length).toBeGreaterThan(10);
    for (const t of transitions) expect(t.target !== undefined || t.actions.length > 0).toBe(true);
  });

  it('marks as final exactly the statuses that only refunds can follow', () => {
    for (const status of ORDER_STATUSES) {
      const events = Object.keys(orderMachine.root.states[status]!.on);
      const final = (FINAL_STATUSES as readonly string[]).includes(status);
      expect(
        events.every((type) => type === 'OrderRefunded'),
        status,
      ).toBe(final);
    }
  });
});

describe('order machine: the spec transition table', () => {
  it.each([
    ['(none) -> placed by OrderPlaced', [], ev.placed(), 'placed'],
    ['placed -> confirmed when the restaurant accepts', history.cashDelivery.placed, ev.accepted(), 'confirmed'],
    ['confirmed -> preparing when the kitchen starts', history.cashDelivery.confirmed, ev.started(), 'preparing'],
    ['preparing -> ready when packed', history.cashDelivery.preparing, ev.packed(), 'ready'],
    [
      'ready -> out_for_delivery when the rider picks up',
      history.cashDelivery.readyWithRider,
      ev.pickedUp(),
      'out_for_delivery',
    ],
    [
      'out_for_delivery -> delivered when handed over',
      history.cashDelivery.out_for_delivery,
      ev.delivered(),
      'delivered',
    ],
    ['ready -> completed when the customer collects (pickup)', history.cashPickup.ready, ev.collected(), 'completed'],
    ['placed -> cancelled by the partner', history.cashDelivery.placed, ev.cancelled('partner'), 'cancelled'],
    ['confirmed -> cancelled by the partner', history.cashDelivery.confirmed, ev.cancelled('partner'), 'cancelled'],
  ] as const)('%s', (_name, given, event, expected) => {
    expect(statusOf(transition(orderMachine, fold([...given]), event)[0])).toBe(expected);
  });

  it('walks the whole delivery path and the whole pickup path', () => {
    expect(statusOf(fold(history.cashDelivery.delivered))).toBe('delivered');
    expect(statusOf(fold(history.cashPickup.completed))).toBe('completed');
  });

  it('keeps each path to its fulfilment', () => {
    expect(accepts(history.cashPickup.ready, ev.pickedUp())).toBe(false);
    expect(accepts(history.cashPickup.ready, ev.rider())).toBe(false);
    expect(accepts(history.cashDelivery.readyWithRider, ev.collected())).toBe(false);
    expect(accepts(history.cashDelivery.ready, ev.pickedUp())).toBe(false); // no rider yet
  });

  it('refuses a partner cancel once the kitchen has started, and a second cancel', () => {
    for (const given of [
      history.cashDelivery.preparing,
      history.cashDelivery.readyWithRider,
      history.cashDelivery.out_for_delivery,
    ]) {
      expect(accepts(given, ev.cancelled('partner'))).toBe(false);
      expect(accepts(given, ev.cancelled('restaurant'))).toBe(true);
      expect(accepts(given, ev.cancelled('support'))).toBe(true);
    }
    expect(accepts([...history.cashDelivery.placed, ev.cancelled('partner')], ev.cancelled('partner'))).toBe(false);
    expect(accepts(history.cashDelivery.delivered, ev.cancelled('restaurant'))).toBe(false);
  });

  it('lets a rider be replaced while confirmed, preparing or ready, without a status change', () => {
    const other = { ...RIDER, name: 'Omar' };
    const snapshot = fold([...history.cashDelivery.confirmed, ev.rider(2), ev.started(3), ev.rider(4, other)]);
    expect(statusOf(snapshot)).toBe('preparing');
    expect(snapshot.context.rider).toEqual(other);
    expect(accepts(history.cashDelivery.placed, ev.rider())).toBe(false);
    expect(accepts(history.cashDelivery.out_for_delivery, ev.rider())).toBe(false);
  });
});

describe('order machine: payment', () => {
  it('confirms a card order only once it is paid', () => {
    expect(accepts(history.card.pending, ev.accepted())).toBe(false);
    expect(accepts(history.card.failed, ev.accepted())).toBe(false);
    expect(accepts(history.card.paid, ev.accepted())).toBe(true);
  });

  it('moves card payment pending -> failed -> failed -> paid, and no further', () => {
    expect(fold(history.card.pending).context.payment_status).toBe('pending');
    expect(fold(history.card.failed).context.payment_status).toBe('failed');
    expect(fold([...history.card.failed, ev.failed(2)]).context.payment_status).toBe('failed');
    expect(fold([...history.card.failed, ev.paid(2)]).context.payment_status).toBe('paid');
    expect(accepts(history.card.paid, ev.paid(2))).toBe(false);
    expect(accepts(history.card.paid, ev.failed(2))).toBe(false);
  });

  it('refuses a payment that is not the order total, and payments on cancelled orders', () => {
    expect(accepts(history.card.pending, ev.paid(1, TOTAL - 1))).toBe(false);
    expect(accepts([...history.card.pending, ev.cancelled('partner')], ev.paid(8))).toBe(false);
    expect(accepts([...history.card.pending, ev.cancelled('partner')], ev.failed(8))).toBe(false);
  });

  it('has no payment events for cash orders, which become paid when delivered or collected', () => {
    expect(accepts(history.cashDelivery.placed, ev.paid())).toBe(false);
    expect(accepts(history.cashDelivery.placed, ev.failed())).toBe(false);
    expect(fold(history.cashDelivery.out_for_delivery).context.payment_status).toBe('pending');
    expect(fold(history.cashDelivery.delivered).context.payment_status).toBe('paid');
    expect(fold(history.cashPickup.ready).context.payment_status).toBe('pending');
    expect(fold(history.cashPickup.completed).context.payment_status).toBe('paid');
  });
});

describe('order machine: refunds', () => {
  const delivered = history.cashDelivery.delivered;

  it('goes to partially_refunded, then refunded when the cumulative total reaches the order total', () => {
    const partly = fold([...delivered, ev.refunded(1000, 1000)]);
    expect([statusOf(partly), partly.context.payment_status, partly.context.refunded_total]).toEqual([
      'partially_refunded',
      'partially_refunded',
      1000,
    ]);
    const fully = fold([...delivered, ev.refunded(1000, 1000), ev.refunded(TOTAL - 1000, TOTAL, 9)]);
    expect([statusOf(fully), fully.context.payment_status, fully.context.refunded_total]).toEqual([
      'refunded',
      'refunded',
      TOTAL,
    ]);
    expect(fully.can(ev.refunded(1, TOTAL + 1, 10))).toBe(false);
  });

  it('refuses zero, fractional, inconsistent and over-total refunds', () => {
    for (const bad of [
      ev.refunded(0, 0),
      ev.refunded(0.5, 0.5),
      ev.refunded(100, 200),
      ev.refunded(TOTAL + 1, TOTAL + 1),
    ]) {
      expect(accepts(delivered, bad)).toBe(false);
    }
  });

  it('refunds only paid orders that are delivered, completed, cancelled or partially refunded', () => {
    expect(accepts(history.cashPickup.completed, ev.refunded(TOTAL, TOTAL))).toBe(true);
    expect(accepts([...history.card.paid, ev.cancelled('partner', 2)], ev.refunded(TOTAL, TOTAL))).toBe(true);
    expect(accepts([...history.card.pending, ev.cancelled('partner', 2)], ev.refunded(TOTAL, TOTAL))).toBe(false);
    expect(accepts([...history.cashDelivery.placed, ev.cancelled('partner', 2)], ev.refunded(TOTAL, TOTAL))).toBe(
      false,
    );
    expect(accepts([...history.card.paid, ev.accepted(2)], ev.refunded(TOTAL, TOTAL))).toBe(false);
  });
});

describe('rehydrate', () => {
  it('builds the current order view from the stream', () => {
    const events = [...history.cashDelivery.readyWithRider, ev.cancelled('restaurant', 9, 'kitchen closed')];
    const { order } = rehydrate(events);
    const { at: _at, ...placed } = (events[0] as Extract<OrderEvent, { type: 'OrderPlaced' }>).data;
    expect(order).toEqual({
      ...placed,
      status: 'cancelled',
      payment_status: 'pending',
      rider: RIDER,
      refunded_total: 0,
      cancellation: { by: 'restaurant', reason: 'kitchen closed' },
      created_at: at(0),
      updated_at: at(9),
      version: events.length,
    });
  });

  it('gives no order for an empty stream', () => {
    expect(rehydrate([]).order).toBeNull();
  });

  it('refuses a stored history the machine does not accept', () => {
    expect(() => rehydrate([ev.accepted()])).toThrow(OrderHistoryError);
    expect(() => rehydrate([...history.cashPickup.ready, ev.pickedUp()])).toThrow(
      /OrderPickedUp is not accepted in status ready/,
    );
  });
});

describe('docs/order-machine.md', () => {
  it('contains exactly the diagram generated from the machine', () => {
    const doc = readFileSync(new URL('../../docs/order-machine.md', import.meta.url), 'utf8');
    const block = '```mermaid\n' + toMermaid() + '```';
    // On failure: replace the mermaid block in the doc with this text.
    expect(doc.includes(block), block).toBe(true);
  });

  it('draws every public status and names the guards', () => {
    const diagram = toMermaid();
    for (const status of ORDER_STATUSES) expect(diagram).toContain(` ${status}`);
    expect(diagram).toContain('    ready --> completed: OrderCollected [isPickup]\n');
    expect(diagram).toContain('    placed --> placed: PaymentFailed [cardAwaitingPayment]\n');
    expect(diagram).toContain('    refunded --> [*]\n');
  });
});

import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../src/domain/order/events.js';
import { applyEvent } from '../../projections/projection.js';
import { ordersList, type OrderListEntry } from '../../projections/orders-list.js';
import type { StoredDocument } from '../../src/ports/read-model-store.js';
import { at, ev, history, TOTAL } from './order-fixtures.js';
import { frozen, project, recorded } from './projection-fixtures.js';

// GET /v1/orders/{id}/tracking reads two documents: the order's in orders-list (status, rider,
// timeline) and its rider's newest position in rider-positions (projection-rider-positions.test.ts).
const timeline = (events: OrderEvent[]) => project(ordersList, recorded(events))!.doc.timeline;
const deliveredWithRefunds = [
  ...history.cashDelivery.delivered,
  ev.refunded(500, 500, 8),
  ev.refunded(TOTAL - 500, TOTAL, 9),
];

describe('orders-list projection: the status timeline in the order document', () => {
  it('when a delivery order goes all the way, then each status it entered is listed once, in order, at the time it was entered', () => {
    // RiderAssigned (minute 4) changes no status, so it adds no entry.
    expect(timeline(history.cashDelivery.delivered)).toEqual([
      { status: 'placed', at: at(0) },
      { status: 'confirmed', at: at(1) },
      { status: 'preparing', at: at(2) },
      { status: 'ready', at: at(3) },
      { status: 'out_for_delivery', at: at(5) },
      { status: 'delivered', at: at(6) },
    ]);
  });

  it('when a pickup order is collected, then the timeline ends with completed', () => {
    expect(timeline(history.cashPickup.completed).map((e) => e.status)).toEqual([
      'placed',
      'confirmed',
      'preparing',
      'ready',
      'completed',
    ]);
  });

  it('when a card payment fails and then succeeds, then payments add no entries', () => {
    expect(timeline([ev.placed({ payment_method: 'card' }), ev.failed(1), ev.paid(2), ev.accepted(3)])).toEqual([
      { status: 'placed', at: at(0) },
      { status: 'confirmed', at: at(3) },
    ]);
  });

  it('when an order is cancelled or refunded, then those statuses are entries too', () => {
    expect(timeline([ev.placed(), ev.accepted(), ev.cancelled('restaurant', 2)])).toEqual([
      { status: 'placed', at: at(0) },
      { status: 'confirmed', at: at(1) },
      { status: 'cancelled', at: at(2) },
    ]);
    expect(timeline(deliveredWithRefunds).slice(-3)).toEqual([
      { status: 'delivered', at: at(6) },
      { status: 'partially_refunded', at: at(8) },
      { status: 'refunded', at: at(9) },
    ]);
  });

  it('when the events arrive one by one, in runs, or twice, then the timeline is the same', () => {
    const events = recorded(deliveredWithRefunds);
    const whole = project(ordersList, events)!.doc.timeline;
    let twice: StoredDocument<OrderListEntry> | null = null;
    for (const e of events) {
      twice = frozen(applyEvent(ordersList, twice, e) ?? twice);
      expect(applyEvent(ordersList, twice, e)).toBeNull();
    }
    expect(twice!.doc.timeline).toEqual(whole);
    const inRuns = ordersList.evolveAll!(ordersList.evolveAll!(null, events.slice(0, 4))!.doc, events.slice(4))!.doc
      .timeline;
    expect(inRuns).toEqual(whole);
    expect(whole.map((t) => t.status)).toEqual([
      'placed',
      'confirmed',
      'preparing',
      'ready',
      'out_for_delivery',
      'delivered',
      'partially_refunded',
      'refunded',
    ]);
  });
});

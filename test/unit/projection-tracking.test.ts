import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../src/domain/order/events.js';
import { applyEvent, type ProjectedEvent } from '../../projections/projection.js';
import { ordersList, type OrderListEntry } from '../../projections/orders-list.js';
import { riderPositions } from '../../projections/rider-positions.js';
import type { StoredDocument } from '../../src/ports/read-model-store.js';
import { at, ev, history, TOTAL } from './order-fixtures.js';
import { frozen, position, project, recorded } from './projection-fixtures.js';

// Tracking reads two documents: the order's (status, rider, timeline) and its rider's newest position.
const timeline = (events: OrderEvent[]) => project(ordersList, recorded(events))!.doc.timeline;
const deliveredWithRefunds = [...history.cashDelivery.delivered, ev.refunded(500, 500, 8), ev.refunded(TOTAL - 500, TOTAL, 9)];

describe('tracking: the timeline in the order document', () => {
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
    expect(timeline(history.cashPickup.completed).map((e) => e.status)).toEqual(['placed', 'confirmed', 'preparing', 'ready', 'completed']);
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
    const inRuns = ordersList.evolveAll!(ordersList.evolveAll!(null, events.slice(0, 4))!.doc, events.slice(4))!.doc.timeline;
    expect(inRuns).toEqual(whole);
    expect(whole.map((t) => t.status)).toEqual(['placed', 'confirmed', 'preparing', 'ready', 'out_for_delivery', 'delivered', 'partially_refunded', 'refunded']);
  });
});

describe('tracking: rider positions', () => {
  it('when positions arrive, then the newest is the location, and versions follow the rider stream', () => {
    const doc = project(riderPositions, [position(0, at(10), 29.1, 48.1), position(1, at(11), 29.2, 48.2)])!;
    expect(doc.id).toBe('sbx_ord_1');
    expect(doc.doc).toEqual({ order_id: 'sbx_ord_1', location: { lat: 29.2, lng: 48.2, updated_at: at(11) } });
    expect(doc.versions).toEqual({ 'rider-sbx_ord_1': 1 });
  });

  it('when a position taken earlier is recorded later, then the location keeps the later one and nothing is written', () => {
    const doc = frozen(project(riderPositions, [position(0, at(11), 29.2, 48.2)])!);
    expect(applyEvent(riderPositions, doc, position(1, at(10), 29.1, 48.1))).toBeNull();
    expect(project(riderPositions, [position(1, at(10), 29.1, 48.1)], doc)!.doc.location).toEqual({ lat: 29.2, lng: 48.2, updated_at: at(11) });
  });

  it('when a position is replayed or an older revision of the rider stream arrives, then nothing is written', () => {
    const doc = frozen(project(riderPositions, [position(0, at(10)), position(1, at(11))])!);
    expect(applyEvent(riderPositions, doc, position(1, at(11)))).toBeNull();
    expect(applyEvent(riderPositions, doc, position(0, at(10)))).toBeNull();
  });

  it('when only the newest positions are left (bounded rider stream), then the location is the same as from all of them', () => {
    const all = Array.from({ length: 60 }, (_, i) => position(i, `2026-10-12T11:${String(i).padStart(2, '0')}:00.000Z`, 29 + i / 100));
    const full = project(riderPositions, all)!;
    const trimmed = project(riderPositions, all.slice(10))!;
    expect(trimmed.doc).toEqual(full.doc);
    expect(trimmed.versions).toEqual(full.versions);
    expect(full.seq - trimmed.seq).toBe(10);
  });

  it('when order events arrive, then they are not the rider projection\'s, and positions are not the order\'s', () => {
    const order: ProjectedEvent[] = recorded(history.cashDelivery.readyWithRider);
    expect(order.every((e) => applyEvent(riderPositions, null, e) === null)).toBe(true);
    const placed = project(ordersList, order)!;
    expect(applyEvent(ordersList, placed, position(0, at(10)))).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../src/domain/order/events.js';
import { rehydrate } from '../../src/domain/order/state.js';
import { applyEvent, type ProjectedEvent } from '../../projections/projection.js';
import { tracking, type TrackingDocument } from '../../projections/tracking.js';
import type { StoredDocument } from '../../src/ports/read-model-store.js';
import { at, ev, history, RIDER, TOTAL } from './order-fixtures.js';
import { frozen, position, project, recorded } from './projection-fixtures.js';

const timeline = (events: OrderEvent[]) => project(tracking, recorded(events))!.doc.timeline;
const deliveredWithRefunds = [...history.cashDelivery.delivered, ev.refunded(500, 500, 8), ev.refunded(TOTAL - 500, TOTAL, 9)];

describe('tracking projection: timeline', () => {
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

  it('when projected, then status, fulfilment and the order follow the domain fold', () => {
    for (const events of [deliveredWithRefunds, history.cashPickup.ready, history.card.paid]) {
      const doc = project(tracking, recorded(events))!.doc;
      const order = rehydrate(events).order!;
      expect(doc).toMatchObject({ order_id: order.order_id, partner_id: order.partner_id, environment: order.environment, status: order.status, fulfilment: order.fulfilment });
      expect(doc.order).toEqual(order);
    }
  });
});

describe('tracking projection: rider', () => {
  it('when no rider is assigned, then rider is null; once assigned it is the rider, kept through delivery', () => {
    const log = recorded(history.cashDelivery.delivered);
    const riders = log.map((_, i) => project(tracking, log.slice(0, i + 1))!.doc.rider);
    expect(riders.slice(0, 4)).toEqual([null, null, null, null]);
    expect(riders.slice(4)).toEqual([RIDER, RIDER, RIDER]);
  });

  it('when a pickup order is followed, then there is never a rider', () => {
    const log = recorded(history.cashPickup.completed);
    for (let i = 1; i <= log.length; i++) expect(project(tracking, log.slice(0, i))!.doc.rider).toBeNull();
  });

  it('when a rider is reassigned, then the latest rider is shown', () => {
    const other = { name: 'Omar', phone: '+96550003333', vehicle: 'car' };
    const events = [ev.placed(), ev.accepted(), ev.rider(2), ev.rider(3, other)];
    expect(project(tracking, recorded(events))!.doc.rider).toEqual(other);
  });
});

describe('tracking projection: rider location', () => {
  const placedDoc = () => project(tracking, recorded(history.cashDelivery.readyWithRider))!;

  it('when positions arrive, then the newest is the location, and they change neither status nor timeline', () => {
    const before = placedDoc();
    const after = project(tracking, [position(0, at(10), 29.1, 48.1), position(1, at(11), 29.2, 48.2)], before)!;
    expect(after.doc.location).toEqual({ lat: 29.2, lng: 48.2, updated_at: at(11) });
    expect(after.doc.timeline).toEqual(before.doc.timeline);
    expect(after.doc.status).toBe('ready');
    expect(after.versions).toEqual({ 'order-sbx_ord_1': 4, 'rider-sbx_ord_1': 1 });
  });

  it('when a position taken earlier is recorded later, then the location keeps the later one', () => {
    const doc = project(tracking, [position(0, at(11), 29.2, 48.2), position(1, at(10), 29.1, 48.1)], placedDoc())!;
    expect(doc.doc.location).toEqual({ lat: 29.2, lng: 48.2, updated_at: at(11) });
  });

  it('when a position is replayed or an older revision of the rider stream arrives, then nothing is written', () => {
    const doc = frozen(project(tracking, [position(0, at(10)), position(1, at(11))], placedDoc())!);
    expect(applyEvent(tracking, doc, position(1, at(11)))).toBeNull();
    expect(applyEvent(tracking, doc, position(0, at(10)))).toBeNull();
  });

  it('when only the newest positions are left (bounded rider stream), then the location is the same as from all of them', () => {
    const all = Array.from({ length: 60 }, (_, i) => position(i, `2026-10-12T11:${String(i).padStart(2, '0')}:00.000Z`, 29 + i / 100));
    const full = project(tracking, all, placedDoc())!;
    const trimmed = project(tracking, all.slice(10), placedDoc())!;
    expect(trimmed.doc).toEqual(full.doc);
    expect(trimmed.versions).toEqual(full.versions);
    expect(full.seq - trimmed.seq).toBe(10);
  });

  it('when order events follow a position, then the location is kept', () => {
    const located = project(tracking, [position(0, at(10))], placedDoc())!;
    const moving = project(tracking, recorded([...history.cashDelivery.delivered]), located)!;
    expect(moving.doc.location).toEqual({ lat: 29.33, lng: 48.07, updated_at: at(10) });
    expect(moving.doc.status).toBe('delivered');
  });

  it('when a position arrives for an order the projection has not seen, then no document is created', () => {
    expect(applyEvent(tracking, null, position(0, at(10)))).toBeNull();
  });
});

describe('tracking projection: replays', () => {
  it('when every event (order and rider) is applied twice, then the document is what applying each once gives', () => {
    const events: ProjectedEvent[] = [...recorded(history.cashDelivery.out_for_delivery), position(0, at(10)), position(1, at(11)), ...recorded(deliveredWithRefunds).slice(6)];
    let twice: StoredDocument<TrackingDocument> | null = null;
    for (const e of events) {
      twice = frozen(applyEvent(tracking, twice, e) ?? twice);
      expect(applyEvent(tracking, twice, e)).toBeNull();
    }
    expect(twice).toEqual(project(tracking, events));
    expect(twice!.doc.timeline.map((t) => t.status)).toEqual(['placed', 'confirmed', 'preparing', 'ready', 'out_for_delivery', 'delivered', 'partially_refunded', 'refunded']);
  });
});

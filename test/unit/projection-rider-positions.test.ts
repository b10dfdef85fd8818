import { describe, expect, it } from 'vitest';
import { applyEvent, type ProjectedEvent } from '../../projections/projection.js';
import { ordersList } from '../../projections/orders-list.js';
import { riderPositions } from '../../projections/rider-positions.js';
import { at, history } from './order-fixtures.js';
import { frozen, position, project, recorded } from './projection-fixtures.js';

// GET /v1/orders/{id}/tracking reads two documents: the order's in orders-list
// (projection-timeline.test.ts) and its rider's newest position, here.
describe('rider-positions projection', () => {
  it('when positions arrive, then the newest is the location, and versions follow the rider stream', () => {
    const doc = project(riderPositions, [position(0, at(10), 29.1, 48.1), position(1, at(11), 29.2, 48.2)])!;
    expect(doc.id).toBe('sbx_ord_1');
    expect(doc.doc).toEqual({ order_id: 'sbx_ord_1', location: { lat: 29.2, lng: 48.2, updated_at: at(11) } });
    expect(doc.versions).toEqual({ 'rider-sbx_ord_1': 1 });
  });

  it('when a position taken earlier is recorded later, then the location keeps the later one and nothing is written', () => {
    const doc = frozen(project(riderPositions, [position(0, at(11), 29.2, 48.2)])!);
    expect(applyEvent(riderPositions, doc, position(1, at(10), 29.1, 48.1))).toBeNull();
    expect(project(riderPositions, [position(1, at(10), 29.1, 48.1)], doc)!.doc.location).toEqual({
      lat: 29.2,
      lng: 48.2,
      updated_at: at(11),
    });
  });

  it('when a position is replayed or an older revision of the rider stream arrives, then nothing is written', () => {
    const doc = frozen(project(riderPositions, [position(0, at(10)), position(1, at(11))])!);
    expect(applyEvent(riderPositions, doc, position(1, at(11)))).toBeNull();
    expect(applyEvent(riderPositions, doc, position(0, at(10)))).toBeNull();
  });

  it('when only the newest positions are left (bounded rider stream), then the location is the same as from all of them', () => {
    const all = Array.from({ length: 60 }, (_, i) =>
      position(i, `2026-10-12T11:${String(i).padStart(2, '0')}:00.000Z`, 29 + i / 100),
    );
    const full = project(riderPositions, all)!;
    const trimmed = project(riderPositions, all.slice(10))!;
    expect(trimmed.doc).toEqual(full.doc);
    expect(trimmed.versions).toEqual(full.versions);
    expect(full.seq - trimmed.seq).toBe(10);
  });

  it("when order events arrive, then they are not the rider projection's, and positions are not the order's", () => {
    const order: ProjectedEvent[] = recorded(history.cashDelivery.readyWithRider);
    expect(order.every((e) => applyEvent(riderPositions, null, e) === null)).toBe(true);
    const placed = project(ordersList, order)!;
    expect(applyEvent(ordersList, placed, position(0, at(10)))).toBeNull();
  });
});

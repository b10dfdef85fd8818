import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { OrderEvent } from '../../src/domain/order/events.js';
import { rehydrate } from '../../src/domain/order/state.js';
import { applyEvent } from '../../projections/projection.js';
import { ordersList, type OrderListEntry } from '../../projections/orders-list.js';
import type { StoredDocument } from '../../src/ports/read-model-store.js';
import { ev, history, PICKUP, TOTAL } from './order-fixtures.js';
import { frozen, project, recorded } from './projection-fixtures.js';

const card = { payment_method: 'card' } as const;

/** Whole histories, one per path an order can take (statuses, payments, cancellations, refunds). */
const HISTORIES: Record<string, OrderEvent[]> = {
  ...Object.fromEntries(Object.entries(history.cashDelivery).map(([k, v]) => [`cash delivery ${k}`, v])),
  ...Object.fromEntries(Object.entries(history.cashPickup).map(([k, v]) => [`cash pickup ${k}`, v])),
  ...Object.fromEntries(Object.entries(history.card).map(([k, v]) => [`card ${k}`, v])),
  'card failed then paid, delivered, refunded in two parts': [
    ev.placed(card),
    ev.failed(1),
    ev.paid(2),
    ev.accepted(3),
    ev.started(4),
    ev.rider(5),
    ev.packed(6),
    ev.pickedUp(7),
    ev.delivered(8),
    ev.refunded(500, 500, 9),
    ev.refunded(TOTAL - 500, TOTAL, 10),
  ],
  'cancelled by the partner while placed': [
    ev.placed({ reference: null }),
    ev.cancelled('partner', 1, 'customer changed mind'),
  ],
  'cancelled by the restaurant while preparing': [
    ev.placed(),
    ev.accepted(),
    ev.started(),
    ev.cancelled('restaurant', 3, 'out of stock'),
  ],
  'paid card pickup cancelled by support, then refunded': [
    ev.placed({ ...card, ...PICKUP }),
    ev.paid(1),
    ev.accepted(2),
    ev.cancelled('support', 3),
    ev.refunded(TOTAL, TOTAL, 4),
  ],
};

describe('orders-list projection', () => {
  it.each(Object.entries(HISTORIES))(
    'when the whole history "%s" is projected, then the document is the domain fold',
    (_name, events) => {
      const stored = project(ordersList, recorded(events))!;
      const order = rehydrate(events).order!;
      expect(stored.doc.order).toEqual(order);
      expect(stored.doc).toEqual({
        id: order.order_id,
        timeline: expect.any(Array),
        // When the rider (if any) was assigned: its RiderAssigned's time.
        rider_since:
          (events.findLast((e) => e.type === 'RiderAssigned')?.data as { at?: string } | undefined)?.at ?? null,
        partner_id: order.partner_id,
        environment: order.environment,
        reference: order.reference,
        order_number: order.order_number,
        status: order.status,
        created_at: order.created_at,
        updated_at: order.updated_at,
        order,
      });
      expect(stored.id).toBe(order.order_id);
      expect(stored.seq).toBe(events.length);
      expect(stored.versions).toEqual({ [`order-${order.order_id}`]: events.length - 1 });
    },
  );

  it.each(Object.entries(HISTORIES))(
    'when every event of "%s" is applied twice, then the second time changes nothing',
    (_name, events) => {
      let doc: StoredDocument<OrderListEntry> | null = null;
      for (const e of recorded(events)) {
        doc = frozen(applyEvent(ordersList, doc, e)!);
        expect(applyEvent(ordersList, doc, e)).toBeNull();
      }
      expect(doc!.doc.order).toEqual(rehydrate(events).order);
    },
  );

  it('when the whole log is replayed onto the finished document (a restart before the checkpoint), then nothing is written', () => {
    const events = recorded(HISTORIES['card failed then paid, delivered, refunded in two parts']!);
    const done = project(ordersList, events)!;
    for (const e of events) expect(applyEvent(ordersList, done, e)).toBeNull();
  });

  it('when stale copies of earlier events arrive in between (a second runner behind this one), then the result is the clean fold', () => {
    const paths = Object.values(HISTORIES);
    fc.assert(
      fc.property(
        fc.constantFrom(...paths),
        fc.array(fc.array(fc.nat(), { maxLength: 4 }), { minLength: 12, maxLength: 12 }),
        (events, stale) => {
          const log = recorded(events);
          let doc: StoredDocument<OrderListEntry> | null = null;
          log.forEach((e, i) => {
            doc = applyEvent(ordersList, doc, e) ?? doc;
            for (const n of stale[i]!) doc = applyEvent(ordersList, doc, log[n % (i + 1)]!) ?? doc;
          });
          expect(doc).toEqual(project(ordersList, log));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('when an event of another stream kind arrives, then it is not the list’s business', () => {
    expect(ordersList.documentId({ ...recorded([ev.placed()])[0]!, streamId: 'rider-sbx_ord_1' })).toBeNull();
  });
});

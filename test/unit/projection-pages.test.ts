import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvents, type ProjectedEvent, type Projection } from '../../projections/projection.js';
import { ordersList } from '../../projections/orders-list.js';
import { riderPositions } from '../../projections/rider-positions.js';
import type { StoredDocument } from '../../src/ports/read-model-store.js';
import { at, ev, history, TOTAL } from './order-fixtures.js';
import { frozen, position, project, recorded } from './projection-fixtures.js';

/** One order's log with rider positions interleaved by position, some before placement is seen. */
function log(): ProjectedEvent[] {
  const order = recorded([
    ...history.cashDelivery.delivered,
    ev.refunded(500, 500, 8),
    ev.refunded(TOTAL - 500, TOTAL, 9),
  ]);
  const riders = [position(1, at(3)), position(2, at(5), 29.4), position(3, at(4), 29.5), position(4, at(7), 29.6)];
  const merged = [position(0, at(0))]; // for an order not yet seen: ignored
  order.forEach((e, i) => {
    merged.push(e);
    if (i >= 3 && riders.length) merged.push(riders.shift()!);
  });
  return merged.map((e, i) => ({ ...e, position: BigInt(i + 1) }));
}

/** Splits the log into consecutive pages of the given sizes (what a catch-up applies at once). */
function inPages<D>(projection: Projection<D>, events: ProjectedEvent[], sizes: number[]): StoredDocument<D> | null {
  let doc: StoredDocument<D> | null = null;
  let i = 0;
  for (const size of sizes) {
    if (i >= events.length) break;
    const page = events.slice(i, i + size);
    doc = applyEvents(projection, doc && frozen(doc), page) ?? doc;
    i += size;
  }
  if (i < events.length) doc = applyEvents(projection, doc, events.slice(i)) ?? doc;
  return doc;
}

describe('read models applied a page at a time (catch-up)', () => {
  it.each([
    ['orders list', ordersList],
    ['rider positions', riderPositions],
  ] as const)(
    'when the %s log is split into pages of any sizes, then the document, seq and versions are exactly the one-by-one result',
    (_name, projection) => {
      const events = log();
      const oneByOne = project(projection as Projection<unknown>, events);
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 20 }), (sizes) => {
          expect(inPages(projection as Projection<unknown>, events, sizes)).toEqual(oneByOne);
        }),
        { numRuns: 300 },
      );
    },
  );

  it('when a page is applied again (a restart before the checkpoint), then nothing is written', () => {
    const events = log();
    const done = frozen(applyEvents(riderPositions, null, events)!);
    expect(applyEvents(riderPositions, done, events)).toBeNull();
    expect(applyEvents(ordersList, frozen(applyEvents(ordersList, null, events)!), events.slice(3))).toBeNull();
  });
});

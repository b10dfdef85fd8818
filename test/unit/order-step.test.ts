import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { orderMachine, type OrderSnapshot } from '../../src/domain/order/machine.js';
import { INITIAL_SNAPSHOT, nextSnapshot } from '../../src/domain/order/step.js';
import type { OrderEvent } from '../../src/domain/order/events.js';
import { ev, PICKUP, TOTAL } from './order-fixtures.js';

const EVENTS: OrderEvent[] = [
  ev.placed(),
  ev.placed(PICKUP),
  ev.placed({ payment_method: 'card' }),
  ev.accepted(),
  ev.started(),
  ev.packed(),
  ev.rider(),
  ev.pickedUp(),
  ev.delivered(),
  ev.collected(),
  ev.cancelled('partner'),
  ev.cancelled('restaurant', 7, 'closed'),
  ev.paid(),
  ev.paid(1, TOTAL - 1),
  ev.failed(),
  ev.refunded(500, 500),
  ev.refunded(TOTAL - 500, TOTAL),
  ev.refunded(TOTAL, TOTAL),
];

const observable = (s: OrderSnapshot) => ({ value: s.value, context: s.context, status: s.status, accepts: EVENTS.map((e) => s.can(e)) });

describe('nextSnapshot (one shared inert scope)', () => {
  it('starts where xstate starts', () => {
    expect(observable(INITIAL_SNAPSHOT)).toEqual(observable(initialTransition(orderMachine)[0]));
  });

  it('gives the same snapshot as xstate transition() for any sequence of stored events, accepted or not, and leaves its input as it was', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...EVENTS), { maxLength: 14 }), (events) => {
        let ours = INITIAL_SNAPSHOT;
        let theirs = initialTransition(orderMachine)[0];
        for (const event of events) {
          const before = structuredClone({ value: ours.value, context: ours.context });
          const next = nextSnapshot(ours, event);
          expect({ value: ours.value, context: ours.context }).toEqual(before);
          [theirs] = transition(orderMachine, theirs, event);
          ours = next;
          expect(observable(ours)).toEqual(observable(theirs));
        }
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});

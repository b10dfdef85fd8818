import fc from 'fast-check';
import { assign, createMachine, initialTransition, setup, transition, type AnyStateMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { orderMachine, type OrderSnapshot } from '../../src/domain/order/machine.js';
import { INITIAL_SNAPSHOT, nextSnapshot, replayStep, type OrderMachineState } from '../../src/domain/order/step.js';
import { transitionTable } from '../../src/domain/order/transition-table.js';
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

const observable = (s: OrderSnapshot) => ({
  value: s.value,
  context: s.context,
  status: s.status,
  accepts: EVENTS.map((e) => s.can(e)),
});

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

describe('replayStep (the machine read into a table, for the read models)', () => {
  const replayed = (events: OrderEvent[]) => {
    let ours: OrderMachineState = { value: INITIAL_SNAPSHOT.value, context: INITIAL_SNAPSHOT.context };
    let theirs = initialTransition(orderMachine)[0];
    for (const event of events) {
      const before = structuredClone(ours);
      const next = replayStep(ours, event);
      expect(ours).toEqual(before);
      const [after] = transition(orderMachine, theirs, event);
      // Refused by one exactly when refused by the other (both hand back their input).
      expect(next === ours).toBe(after === theirs);
      [ours, theirs] = [next, after];
      expect({ value: ours.value, context: ours.context }).toEqual({ value: theirs.value, context: theirs.context });
    }
  };

  it('gives the value and context xstate transition() gives, for any sequence of stored events, accepted or not', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...EVENTS), { maxLength: 14 }), replayed), {
      numRuns: 500,
      seed: 11,
    });
  });

  it('takes every transition of the diagram as xstate does, and refuses what it refuses', () => {
    replayed([
      ev.placed({ payment_method: 'card' }),
      ev.failed(),
      ev.paid(),
      ev.accepted(),
      ev.rider(),
      ev.started(),
      ev.packed(),
      ev.pickedUp(),
      ev.delivered(),
      ev.refunded(500, 500),
      ev.refunded(TOTAL - 500, TOTAL),
    ]);
    replayed([
      ev.placed(PICKUP),
      ev.accepted(),
      ev.started(),
      ev.packed(),
      ev.collected(),
      ev.refunded(500, 500),
      ev.refunded(TOTAL - 500, TOTAL),
    ]);
    replayed([ev.placed({ payment_method: 'card' }), ev.paid(), ev.cancelled('partner'), ev.refunded(TOTAL, TOTAL)]);
    replayed([ev.placed(), ev.accepted(), ev.rider(), ev.cancelled('partner'), ev.refunded(1, 1)]);
    replayed([
      ev.placed(),
      ev.accepted(),
      ev.started(),
      ev.rider(),
      ev.cancelled('partner'),
      ev.cancelled('restaurant', 7, 'closed'),
    ]);
    replayed([
      ev.placed(),
      ev.accepted(),
      ev.started(),
      ev.packed(),
      ev.pickedUp(),
      ev.rider(),
      ev.pickedUp(),
      ev.cancelled('support', 8, 'lost'),
    ]);
    replayed([ev.placed(), ev.accepted(), ev.started(), ev.packed(), ev.cancelled('restaurant', 6, 'closed')]);
    replayed([ev.placed(PICKUP), ev.accepted(), ev.started(), ev.packed(), ev.collected(), ev.refunded(TOTAL, TOTAL)]);
    replayed([ev.placed({ payment_method: 'card' }), ev.paid(), ev.cancelled('partner'), ev.refunded(500, 500)]);
  });
});

describe('transitionTable refuses a machine it could not step exactly as xstate does', () => {
  const plain = { on: { go: { target: 'b' } } };
  const cases: Array<[string, AnyStateMachine]> = [
    ['an entry action', createMachine({ initial: 'a', states: { a: plain, b: { entry: assign({}) } } })],
    [
      'an eventless transition',
      createMachine({ initial: 'a', states: { a: { ...plain, always: { target: 'b' } }, b: {} } }),
    ],
    [
      'a delayed transition',
      createMachine({ initial: 'a', states: { a: { ...plain, after: { 10: { target: 'b' } } }, b: {} } }),
    ],
    ['a nested state', createMachine({ initial: 'a', states: { a: plain, b: { initial: 'c', states: { c: {} } } } })],
    ['a transition on the root', createMachine({ initial: 'a', on: { stop: '.b' }, states: { a: plain, b: {} } })],
    ['a wildcard event', createMachine({ initial: 'a', states: { a: { on: { '*': { target: 'b' } } }, b: {} } })],
    [
      'an inline guard',
      createMachine({ initial: 'a', states: { a: { on: { go: { target: 'b', guard: () => true } } }, b: {} } }),
    ],
    [
      'an action that is not a context update',
      setup({ actions: { log: () => undefined } }).createMachine({
        initial: 'a',
        states: { a: { on: { go: { target: 'b', actions: 'log' } } }, b: {} },
      }),
    ],
    ['a transition that does nothing', createMachine({ initial: 'a', states: { a: { on: { go: {} } } } })],
  ];
  it.each(cases)('%s', (_what, machine) => {
    expect(() => transitionTable(machine, {}, {})).toThrow(/transitionTable: machine/);
  });

  it('accepts the order machine, and a plain machine with named guards and updates', () => {
    const step = transitionTable<'a' | 'b', { n: number }, { type: 'go' }>(
      setup({
        types: {},
        guards: { small: ({ context }) => context.n < 2 },
        actions: { bump: assign(({ context }) => ({ n: context.n + 1 })) },
      }).createMachine({
        initial: 'a',
        context: { n: 0 },
        states: {
          a: { on: { go: [{ target: 'b', guard: 'small', actions: 'bump' }] } },
          b: { on: { go: { target: 'a' } } },
        },
      }),
      { small: ({ context }) => context.n < 2 },
      { bump: ({ context }) => ({ n: context.n + 1 }) },
    );
    let state = { value: 'a' as 'a' | 'b', context: { n: 0 } };
    const values = [];
    for (let i = 0; i < 5; i++) {
      const next = step(state, { type: 'go' });
      values.push(next === state ? 'refused' : `${next.value}${next.context.n}`);
      state = next;
    }
    expect(values).toEqual(['b1', 'a1', 'b2', 'a2', 'refused']);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  evolve,
  fold,
  foldView,
  initialState,
  OrderHistoryError,
  rehydrate,
  type OrderState,
  type OrderView,
} from '../../src/domain/order/state.js';
import type { OrderEvent } from '../../src/domain/order/events.js';
import { ev, history, PICKUP, TOTAL } from './order-fixtures.js';

const EVENTS: OrderEvent[] = [
  ev.placed(),
  ev.placed(PICKUP),
  ev.placed({ payment_method: 'card' }),
  ev.accepted(2),
  ev.started(3),
  ev.packed(4),
  ev.rider(5),
  ev.pickedUp(6),
  ev.delivered(7),
  ev.collected(7),
  ev.cancelled('partner'),
  ev.cancelled('restaurant', 7, 'closed'),
  ev.paid(1),
  ev.failed(1),
  ev.refunded(500, 500),
  ev.refunded(TOTAL - 500, TOTAL),
  ev.refunded(TOTAL, TOTAL),
];

/** The outcome of folding, comparable: the state's observable parts, or the error's message. */
function outcome(run: () => OrderState) {
  try {
    const s = run();
    return { order: s.order, value: s.snapshot.value, context: s.snapshot.context };
  } catch (err) {
    expect(err).toBeInstanceOf(OrderHistoryError);
    return { error: (err as Error).message };
  }
}

/** A sequence the machine accepts event by event, found by dropping what it refuses. */
function accepted(events: OrderEvent[]): OrderEvent[] {
  const kept: OrderEvent[] = [];
  let state = initialState();
  for (const e of events) {
    if (!state.snapshot.can(e)) continue;
    state = evolve(state, e);
    kept.push(e);
  }
  return kept;
}

describe('fold (the view built once per batch)', () => {
  it('gives what folding one event at a time gives, for any sequence, accepted or not (same state or same error)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...EVENTS), { maxLength: 12 }), (events) => {
        expect(outcome(() => fold(initialState(), events))).toEqual(
          outcome(() => events.reduce(evolve, initialState())),
        );
      }),
      { numRuns: 500, seed: 5 },
    );
  });

  it('gives the same state however an accepted history is split into batches (a kept fold plus its tail)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...EVENTS), { maxLength: 14 }), fc.nat(), (raw, cut) => {
        const events = accepted(raw);
        const at = events.length ? cut % (events.length + 1) : 0;
        const split = fold(fold(initialState(), events.slice(0, at)), events.slice(at));
        expect(outcome(() => split)).toEqual(outcome(() => rehydrate(events)));
        if (events.length) expect(split.order?.version).toBe(events.length);
      }),
      { numRuns: 500, seed: 9 },
    );
  });

  it('names the refused event and the status it met', () => {
    expect(() => rehydrate([...history.cashDelivery.delivered, ev.accepted(9)])).toThrow(
      new OrderHistoryError('stored event OrderAccepted is not accepted in status delivered'),
    );
    expect(() => rehydrate([ev.accepted()])).toThrow(
      new OrderHistoryError('stored event OrderAccepted is not accepted in an unplaced order'),
    );
  });

  it('returns the state itself for no events', () => {
    const state = rehydrate(history.cashDelivery.ready);
    expect(fold(state, [])).toBe(state);
  });
});

describe('foldView (the read models: the view alone, replayed through the transition table)', () => {
  /** The view and the statuses after each event, or the error's message. */
  function viewOutcome(run: (onStep: (status: string) => void) => OrderView | null | undefined) {
    const steps: string[] = [];
    try {
      return { view: run((status) => steps.push(status)), steps };
    } catch (err) {
      expect(err).toBeInstanceOf(OrderHistoryError);
      return { error: (err as Error).message };
    }
  }

  it('gives the view folding one event at a time gives, with the same status after each event, for any sequence, accepted or not (same view or same error)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...EVENTS), { minLength: 1, maxLength: 12 }), (events) => {
        const oneByOne = (onStep: (status: string) => void) =>
          events.reduce((state, e) => {
            const next = evolve(state, e);
            onStep(next.order!.status);
            return next;
          }, initialState()).order;
        expect(viewOutcome((onStep) => foldView(null, events, onStep))).toEqual(viewOutcome(oneByOne));
      }),
      { numRuns: 500, seed: 13 },
    );
  });

  it('resumes from a stored view: any accepted history split in two gives the whole history view', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...EVENTS), { maxLength: 14 }), fc.nat(), (raw, cut) => {
        const events = accepted(raw);
        fc.pre(events.length > 1);
        const at = 1 + (cut % (events.length - 1));
        expect(foldView(foldView(null, events.slice(0, at)), events.slice(at))).toEqual(rehydrate(events).order);
      }),
      { numRuns: 500, seed: 17 },
    );
  });

  it('names the refused event and the status it met, and needs at least one event for a new view', () => {
    const delivered = foldView(null, history.cashDelivery.delivered);
    expect(() => foldView(delivered, [ev.accepted(9)])).toThrow(
      new OrderHistoryError('stored event OrderAccepted is not accepted in status delivered'),
    );
    expect(foldView(delivered, [])).toBe(delivered);
    expect(() => foldView(null, [])).toThrow(OrderHistoryError);
  });
});

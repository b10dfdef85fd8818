import { expect } from 'vitest';

/**
 * Given/when/then for a decider, in the shape of emmett's `DeciderSpecification`:
 *
 *   const given = DeciderSpecification.for({ decide, evolve, initialState });
 *   given([placed]).when({ type: 'accept', by: 'restaurant' }).then([accepted]);
 *   given([]).when({ type: 'accept', by: 'restaurant' }).thenThrows(ApiError, (e) => e.code === 'order_not_found');
 *
 * `given` events are folded with `evolve` from `initialState()`; `when` runs `decide(command,
 * state)`; `then` compares the events it returned (deep equality), `thenThrows` what it threw.
 */
export interface Decider<Command, Event, State> {
  decide(command: Command, state: State): Event | Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

// emmett's ErrorConstructor: any class of Error.
type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;
/** Returns false, or fails an `expect` inside, when the error is not the one expected. */
export type ErrorCheck<E extends Error> = (error: E) => boolean | void;

/** What the command did: the events it decided and the state they lead to, or what it threw. */
export type Decided<Event, State> = { events: Event[]; state: State } | { error: unknown };

export interface DeciderWhen<Event, State> {
  then(expected: Event | Event[]): void;
  thenNothingHappened(): void;
  thenThrows<E extends Error = Error>(errorClass?: ErrorClass<E> | ErrorCheck<E>, check?: ErrorCheck<E>): void;
  /**
   * Not in emmett: the outcome as a value, for tests that tabulate many outcomes (a status, or an
   * error code) rather than assert one.
   */
  decided(): Decided<Event, State>;
}

export type DeciderSpecification<Command, Event, State> = (given: Event | Event[]) => {
  when(command: Command): DeciderWhen<Event, State>;
};

const asArray = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);

const isErrorClass = (f: unknown): f is ErrorClass<Error> =>
  typeof f === 'function' && (f === Error || (f as { prototype?: unknown }).prototype instanceof Error);

export const DeciderSpecification = {
  for<Command, Event, State>(decider: Decider<Command, Event, State>): DeciderSpecification<Command, Event, State> {
    return (given) => ({
      when(command) {
        const state = () => asArray(given).reduce(decider.evolve, decider.initialState());
        const handle = (): Event[] => asArray(decider.decide(command, state()));
        return {
          then(expected) {
            expect(handle()).toEqual(asArray(expected));
          },
          thenNothingHappened() {
            expect(handle()).toEqual([]);
          },
          thenThrows<E extends Error>(first?: ErrorClass<E> | ErrorCheck<E>, second?: ErrorCheck<E>) {
            const errorClass = isErrorClass(first) ? first : undefined;
            const check = isErrorClass(first) ? second : first;
            let events: Event[];
            try {
              events = handle();
            } catch (error) {
              if (errorClass) expect(error, `expected a ${errorClass.name}`).toBeInstanceOf(errorClass);
              if (check)
                expect(check(error as E), `the error did not pass the check: ${String(error)}`).not.toBe(false);
              return;
            }
            expect.fail(`expected the command to throw, it decided ${JSON.stringify(events)}`);
          },
          decided() {
            const before = state();
            let events: Event[];
            try {
              events = asArray(decider.decide(command, before));
            } catch (error) {
              return { error };
            }
            return { events, state: events.reduce(decider.evolve, before) };
          },
        };
      },
    });
  },
};

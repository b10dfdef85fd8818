import { createActor, initialTransition } from 'xstate';
import type { OrderEvent } from './events.js';
import { orderContextUpdates, orderGuards, orderMachine, type OrderContext, type OrderSnapshot } from './machine.js';
import { transitionTable, type MachineState } from './transition-table.js';

type Scope = Parameters<typeof orderMachine.transition>[2];

/**
 * One inert actor scope for every step of the order machine. xstate's pure
 * `transition(machine, snapshot, event)` builds a throwaway actor per call, and building an actor
 * computes the machine's initial state, most of the cost of a step (and every GET
 * /v1/orders/{id} folds a whole stream). It then calls `machine.transition(snapshot, event,
 * scope)`, which is what `nextSnapshot` calls with a scope built once: about a quarter of the
 * cost. That is safe because the order machine has only `assign` actions: it spawns, invokes,
 * emits and schedules nothing, so the scope is never written to and its no-op hooks are never
 * needed.
 */
const self = createActor(orderMachine);
const scope: Scope = {
  self,
  id: '',
  sessionId: '',
  system: self.system,
  logger: () => undefined,
  defer: () => undefined,
  emit: () => undefined,
  stopChild: () => undefined,
  actionExecutor: () => undefined,
};

/** The machine's initial snapshot; snapshots are never mutated, so one serves every fold. */
export const INITIAL_SNAPSHOT: OrderSnapshot = initialTransition(orderMachine)[0];

/** The same snapshot as xstate's `transition(orderMachine, snapshot, event)[0]`. */
export function nextSnapshot(snapshot: OrderSnapshot, event: OrderEvent): OrderSnapshot {
  return orderMachine.transition(snapshot, event, scope);
}

/** What a replay of stored events keeps of the machine: the snapshot's value and context. */
export type OrderMachineState = MachineState<OrderSnapshot['value'], OrderContext>;

/**
 * One step of the order machine for replaying events it has already accepted, over its own
 * transitions read into a table: the same value and context as `nextSnapshot`, about a tenth of the
 * cost, which matters in a rebuild, where every order event of the log is replayed. Its one caller
 * is `foldView` (state.ts), the fold of every replay of stored events: the read models, the
 * webhook dispatcher, `orders history`. Commands decide with xstate's snapshots (`nextSnapshot`,
 * `can`), as DESIGN.md asks.
 */
export const replayStep: (state: OrderMachineState, event: OrderEvent) => OrderMachineState = transitionTable(
  orderMachine,
  orderGuards,
  orderContextUpdates,
);

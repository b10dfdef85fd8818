import type { AnyStateMachine } from 'xstate';
import { extend } from '../../shared/objects.js';

/** What a machine's snapshot says about where it is: its state and its context. */
export interface MachineState<V extends string, C> {
  readonly value: V;
  readonly context: C;
}

type Args<C, E> = { context: C; event: E };
type Guard<C, E> = (args: Args<C, E>) => boolean;
type Update<C, E> = (args: Args<C, E>) => Partial<C>;

interface Candidate<C, E> {
  target: string | undefined;
  guard: Guard<C, E> | undefined;
  updates: Array<Update<C, E>>;
}

/**
 * A flat machine's transitions read out of its xstate definition into a table, and a step over it:
 * the same state and context as xstate's `transition()` (a property test compares them), at a
 * tenth of the cost, because it skips what such a machine never uses (entry and exit sets,
 * eventless and delayed transitions, actors). The guards and context updates are the functions the
 * machine's `setup` was given, looked up by the names its transitions use.
 *
 * Only machines whose steps are exactly that are accepted: top-level atomic or final states; no
 * entry, exit, eventless, delayed or invoked anything; no wildcard events; guards and actions
 * referenced by name, every action a context update. Anything else throws here, at load, rather
 * than stepping differently from xstate.
 *
 * `step` returns the same object when no transition is enabled, as xstate does.
 */
export function transitionTable<V extends string, C extends object, E extends { type: string }>(
  machine: AnyStateMachine,
  guards: Record<string, Guard<C, E>>,
  updates: Record<string, Update<C, E>>,
): (state: MachineState<V, C>, event: E) => MachineState<V, C> {
  const root = machine.root;
  const fail = (what: string): never => {
    throw new Error(`transitionTable: machine ${machine.id} ${what}`);
  };
  if (
    root.transitions.size > 0 ||
    root.entry.length ||
    root.exit.length ||
    root.always ||
    root.after.length ||
    root.invoke.length
  ) {
    fail('has transitions, actions or actors on its root');
  }
  if (root.initial.actions.length) fail('has actions on its initial transition');
  const table = new Map<string, Map<string, Array<Candidate<C, E>>>>();
  for (const node of Object.values(root.states)) {
    if (
      (node.type !== 'atomic' && node.type !== 'final') ||
      node.entry.length ||
      node.exit.length ||
      node.always ||
      node.after.length ||
      node.invoke.length
    ) {
      fail(`state ${node.key} is not a plain atomic or final state`);
    }
    if (node.type === 'final' && node.transitions.size > 0) fail(`final state ${node.key} has transitions`);
    const byEvent = new Map<string, Array<Candidate<C, E>>>();
    for (const [eventType, transitions] of node.transitions) {
      if (eventType.includes('*')) fail(`state ${node.key} has a wildcard event ${eventType}`);
      byEvent.set(
        eventType,
        transitions.map((t) => {
          if ((t.target?.length ?? 0) > 1 || t.target?.some((s) => s.parent !== root))
            fail(`state ${node.key} has an unsupported target on ${eventType}`);
          if (!t.target && t.actions.length === 0)
            fail(`state ${node.key} has a transition on ${eventType} that does nothing`);
          const guard = t.guard === undefined ? undefined : typeof t.guard === 'string' ? guards[t.guard] : undefined;
          if (t.guard !== undefined && !guard)
            fail(`state ${node.key} has a guard on ${eventType} that is not a named guard`);
          return {
            target: t.target?.[0]?.key,
            guard,
            updates: t.actions.map(
              (a) =>
                (typeof a === 'string' && updates[a]) ||
                fail(`state ${node.key} has an action on ${eventType} that is not a named context update`),
            ),
          };
        }),
      );
    }
    table.set(node.key, byEvent);
  }
  return (state, event) => {
    const candidates = table.get(state.value)?.get(event.type);
    if (!candidates) return state;
    for (const { target, guard, updates } of candidates) {
      if (guard && !guard({ context: state.context, event })) continue;
      let context = state.context;
      for (const update of updates) context = extend(context, update({ context, event })) as C;
      return { value: (target ?? state.value) as V, context };
    }
    return state;
  };
}

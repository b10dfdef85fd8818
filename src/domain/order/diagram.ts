import { orderMachine } from './machine.js';

/**
 * The order machine as a mermaid stateDiagram-v2, read from the machine's own definition so the
 * picture in docs/order-machine.md cannot drift from the code (a unit test compares the two).
 * Transitions without a target keep the status and are drawn as self-loops.
 */
export function toMermaid(): string {
  const lines = ['stateDiagram-v2', `    [*] --> ${orderMachine.root.initial.target[0]?.key ?? 'new'}`];
  for (const node of Object.values(orderMachine.root.states)) {
    for (const [eventType, transitions] of Object.entries(node.on)) {
      for (const t of transitions) {
        const targets = t.target?.map((target) => target.key) ?? [node.key];
        const guard = guardName(t.guard);
        for (const target of targets) {
          lines.push(`    ${node.key} --> ${target}: ${eventType}${guard ? ` [${guard}]` : ''}`);
        }
      }
    }
    if (node.type === 'final') lines.push(`    ${node.key} --> [*]`);
  }
  return lines.join('\n') + '\n';
}

function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String(guard.type);
  return 'guarded';
}

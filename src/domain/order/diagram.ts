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

/**
 * The lines that mark an order's path on the diagram: every status it went through (`visited`, in
 * order) in one style and the last of them, where it is now, in a stronger one. Unknown names are
 * left out, so a corrupt history cannot break the picture.
 */
export function pathMarks(visited: readonly string[]): string {
  const known = new Set(Object.keys(orderMachine.root.states));
  const path = [...new Set(visited.filter((s) => known.has(s)))];
  const current = visited.filter((s) => known.has(s)).at(-1);
  const lines = [
    '    classDef visited fill:#dbeafe,stroke:#1d4ed8,stroke-width:2px,color:#0b1f44',
    '    classDef current fill:#1d4ed8,stroke:#0b1f44,stroke-width:3px,color:#ffffff',
  ];
  const before = path.filter((s) => s !== current);
  if (before.length) lines.push(`    class ${before.join(',')} visited`);
  if (current) lines.push(`    class ${current} current`);
  return lines.join('\n') + '\n';
}

// The results table (printed) and its JSON twin (bench-results.json).

const fmt = (n, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';

/**
 * A row: { id, scenario, value, unit, ratio (to bare Express, or null), target, pass (true, false,
 * or null when not measured or not comparable), note }, and `peer` ({ value, ratio: ours/peer,
 * unit }) on rows measured on the peer too (peer-scenarios.mjs).
 */
export function row(id, scenario, { value = NaN, unit = '', ratio = null, target, pass = null, note = '' }) {
  return { id, scenario, value, unit, ratio, target, pass, note };
}

export function figure(r) {
  if (!Number.isFinite(r.value)) return r.note && r.pass === null ? '-' : 'n/a';
  const digits = r.unit === 'syncs/order' ? 2 : r.unit === 'ms' || r.unit === 's' ? 1 : 0;
  return `${fmt(r.value, digits)} ${r.unit}`.trim();
}

export function printTable(rows, header) {
  const cells = rows.map((r) => [
    r.scenario,
    figure(r),
    r.ratio === null ? '' : `${fmt(r.ratio * 100)}%`,
    r.peer ? `${fmt(r.peer.ratio, 2)}x (${fmt(r.peer.value, r.peer.unit === 'ms' ? 1 : 0)} ${r.peer.unit})` : '',
    r.target,
    r.pass === null ? (r.note.startsWith('TODO') ? 'TODO' : '-') : r.pass ? 'pass' : 'FAIL',
  ]);
  const head = ['scenario', 'figure', 'vs bare', 'ours/peer (peer)', 'target', 'result'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => `| ${c.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  const out = [header, '', line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)];
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.scenario}: ${r.note}`);
  if (notes.length) out.push('', ...notes);
  return out.join('\n');
}

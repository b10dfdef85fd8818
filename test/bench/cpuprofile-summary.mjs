// Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time,
// and the same grouped by package / source file, so a hot spot is visible at a glance.
//
//   node test/bench/cpuprofile-summary.mjs <file.cpuprofile> [--top 25]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

function where(frame) {
  const url = frame.url.replace(/^file:\/\//, '');
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return url;
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : path.basename(url);
}

/** Returns { totalMs, functions: [{ name, where, selfMs, share }], files: [{ where, selfMs, share }] }. */
export function summarise(file, top = 25) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  // timeDeltas[i] is the time before samples[i]; attribute it to that sample's node.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map();
  const files = new Map();
  for (const [id, us] of self) {
    const frame = byId.get(id).callFrame;
    const name = frame.functionName || '(anonymous)';
    const loc = where(frame);
    const key = `${name}\u0000${loc}:${frame.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    files.set(loc, (files.get(loc) ?? 0) + us);
  }
  const rows = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => ({ key: k, selfMs: us / 1000, share: us / totalUs }));
  return {
    totalMs: totalUs / 1000,
    functions: rows(fns).map(({ key, ...r }) => ({
      name: key.split('\u0000')[0],
      where: key.split('\u0000')[1],
      ...r,
    })),
    files: rows(files).map(({ key, ...r }) => ({ where: key, ...r })),
  };
}

export function formatSummary(s) {
  const pct = (x) => `${(x * 100).toFixed(1).padStart(5)}%`;
  return [
    `total sampled: ${(s.totalMs / 1000).toFixed(1)} s`,
    'top self time by function:',
    ...s.functions.map((f) => `  ${pct(f.share)}  ${f.name}  (${f.where})`),
    'self time by package / file:',
    ...s.files.map((f) => `  ${pct(f.share)}  ${f.where}`),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  if (!positionals[0]) {
    console.error('usage: node test/bench/cpuprofile-summary.mjs <file.cpuprofile> [--top 25]');
    process.exit(2);
  }
  console.log(formatSummary(summarise(positionals[0], Number(values.top))));
}

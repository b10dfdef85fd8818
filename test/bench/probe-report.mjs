// What sync-probe.mjs (preloaded into every service the bench starts) recorded, read back for the
// seconds of a measured run.
import fs from 'node:fs';
import path from 'node:path';

export const probeFile = (dir, pid) => path.join(dir, `probe-${pid}.jsonl`);

/**
 * Process `pid`'s probe seconds that lie wholly within [from, to] (epoch ms; each line covers the
 * second before it), summarised; null when it was not probed. `syncs_per_second` over those
 * seconds, so a partly covered second at either end biases nothing.
 */
export function probeSummary(dir, pid, from, to) {
  const file = dir ? probeFile(dir, pid) : undefined;
  if (!file || !fs.existsSync(file)) return null;
  const seconds = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((s) => s.t - 1000 >= from && s.t <= to);
  if (seconds.length === 0) return null;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const worst = (xs) => Math.max(...xs);
  const r = (ms) => Math.round(ms * 10) / 10;
  return {
    seconds: seconds.length,
    syncs: seconds.reduce((n, s) => n + s.syncs, 0),
    syncs_per_second: seconds.reduce((n, s) => n + s.syncs, 0) / seconds.length,
    sync_p50_median: r(median(seconds.map((s) => s.sync_p50))),
    sync_p99_median: r(median(seconds.map((s) => s.sync_p99))),
    sync_max: r(worst(seconds.map((s) => s.sync_max))),
    loop_delay_p99_median: r(median(seconds.map((s) => s.loop_delay_p99))),
    loop_delay_max: r(worst(seconds.map((s) => s.loop_delay_max))),
    per_second: seconds,
  };
}

/** The summary as a note: the syncs, then the event loop. */
export function probeNote(probe) {
  if (!probe) return '';
  return (
    `probe over ${probe.seconds} s: log syncs p50 ${probe.sync_p50_median} ms and p99 ${probe.sync_p99_median} ms (medians of the seconds), ` +
    `longest ${probe.sync_max} ms; event-loop delay p99 ${probe.loop_delay_p99_median} ms (median), longest ${probe.loop_delay_max} ms`
  );
}

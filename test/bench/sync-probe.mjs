// Diagnosis only (`npm run bench -- --probe`): preloaded into the service with `node --import`,
// it times every fdatasync (the event store's log syncs: an acknowledged order waits for one) and
// the event loop's delay, and appends one JSON line per second to BENCH_PROBE_FILE. The bench reads
// the seconds of a measured run back (probeSummary), to tell a slow disk from a busy event loop.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_PROBE_FILE;
if (isMainThread && file) {
  const fdatasync = fs.fdatasync;
  let syncs = [];
  fs.fdatasync = function timed(fd, callback) {
    const started = performance.now();
    return fdatasync.call(fs, fd, (err) => {
      syncs.push(performance.now() - started);
      callback(err);
    });
  };
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  setInterval(() => {
    syncs.sort((a, b) => a - b);
    const at = (q) => (syncs.length ? syncs[Math.min(syncs.length - 1, Math.floor(q * syncs.length))] : 0);
    const line = { t: Date.now(), syncs: syncs.length, sync_p50: at(0.5), sync_p99: at(0.99), sync_max: at(1), loop_delay_p99: delay.percentile(99) / 1e6, loop_delay_max: delay.max / 1e6 };
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    syncs = [];
    delay.reset();
  }, 1000).unref();
}

/** The probe's seconds within [from, to] (epoch ms), summarised; null without a probe file. */
export function probeSummary(probeFile, from, to) {
  if (!probeFile || !fs.existsSync(probeFile)) return null;
  const seconds = fs.readFileSync(probeFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((s) => s.t > from && s.t <= to + 1000);
  if (seconds.length === 0) return null;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const worst = (xs) => Math.max(...xs);
  const r = (ms) => Math.round(ms * 10) / 10;
  return {
    seconds: seconds.length,
    sync_p50_median: r(median(seconds.map((s) => s.sync_p50))),
    sync_p99_median: r(median(seconds.map((s) => s.sync_p99))),
    sync_max: r(worst(seconds.map((s) => s.sync_max))),
    loop_delay_p99_median: r(median(seconds.map((s) => s.loop_delay_p99))),
    loop_delay_max: r(worst(seconds.map((s) => s.loop_delay_max))),
    per_second: seconds,
  };
}

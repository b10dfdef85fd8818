// Preloaded into every service the bench starts (`node --import`): it counts and times every
// fdatasync (the event store's log syncs: an acknowledged order waits for one) and the event loop's
// delay, and appends one JSON line per second to probe-<pid>.jsonl in BENCH_PROBE_DIR. The bench
// reads the seconds of a measured run back (probe-report.mjs): syncs per order, and a slow disk
// told from a busy event loop.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { probeFile } from './probe-report.mjs';

const dir = process.env.BENCH_PROBE_DIR;
if (isMainThread && dir) {
  const file = probeFile(dir, process.pid);
  const fdatasync = fs.fdatasync;
  let syncs = [];
  fs.fdatasync = function timed(fd, callback) {
    const started = performance.now();
    return fdatasync.call(fs, fd, (err) => {
      syncs.push(performance.now() - started);
      callback(err);
    });
  };
  // The histogram records the time between its timer's ticks, the 5 ms interval included (an idle
  // process shows 5 ms): the delay is what exceeds it.
  const RESOLUTION_MS = 5;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  const late = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  setInterval(() => {
    syncs.sort((a, b) => a - b);
    const at = (q) => (syncs.length ? syncs[Math.min(syncs.length - 1, Math.floor(q * syncs.length))] : 0);
    const line = {
      t: Date.now(),
      syncs: syncs.length,
      sync_p50: at(0.5),
      sync_p99: at(0.99),
      sync_max: at(1),
      loop_delay_p99: late(delay.percentile(99)),
      loop_delay_max: late(delay.max),
    };
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    syncs = [];
    delay.reset();
  }, 1000).unref();
}

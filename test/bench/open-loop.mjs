// A fixed-rate (open-loop) load: requests leave at evenly spaced instants whatever the answers do,
// and each latency is measured from the instant the request was due, so a stalled server cannot
// hide its stall by slowing the client down (coordinated omission). autocannon's overallRate is
// not this: it gives each connection a per-second budget that it spends back to back at the start
// of every second, which measures bursts of 100 concurrent requests, not a steady rate.
import fs from 'node:fs';
import { Pool } from 'undici';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function cpuSeconds(pid) {
  if (!pid) return NaN;
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * `request`: { method, path, headers, body (object), perRequestHeaders() }. Options: rate (per
 * second), seconds, expect (status), connections (the pool; enough that a request never waits for
 * a free one at this rate), pid (for the server's CPU use). Returns the same shape as load().
 */
export async function openLoop(baseUrl, request, { rate, seconds, expect = 200, connections = 100, pid }) {
  const pool = new Pool(baseUrl, { connections, pipelining: 1 });
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const interval = 1000 / rate;
  const total = Math.round(rate * seconds);
  const latencies = [];
  const codes = {};
  let errors = 0;
  const pending = [];
  const cpuBefore = cpuSeconds(pid);
  const start = performance.now() + 20;
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait >= 1) await sleep(wait);
    const headers = { ...request.headers, ...(request.perRequestHeaders?.() ?? {}) };
    pending.push(
      pool.request({ method: request.method ?? 'GET', path: request.path, headers, body }).then(
        async (res) => {
          await res.body.dump();
          codes[res.statusCode] = (codes[res.statusCode] ?? 0) + 1;
          latencies.push(performance.now() - due);
        },
        () => errors++,
      ),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  const cpu = (cpuSeconds(pid) - cpuBefore) / elapsed;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pct = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  const good = codes[String(expect)] ?? 0;
  const round = (ms) => Math.round(ms * 10) / 10;
  return {
    rps: good / elapsed,
    completed: good,
    bad: total - good,
    codes,
    errors,
    timeouts: 0,
    seconds: elapsed,
    latency: { p50: round(pct(0.5)), p90: round(pct(0.9)), p99: round(pct(0.99)), max: round(latencies.at(-1) ?? NaN) },
    serverCpu: cpu,
  };
}

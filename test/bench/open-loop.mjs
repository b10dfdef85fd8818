// A fixed-rate (open-loop) load: requests leave at evenly spaced instants whatever the answers do,
// and each latency is measured from the instant the request was due, so a stalled server cannot
// hide its stall by slowing the client down (coordinated omission). autocannon's overallRate is
// not this: it gives each connection a per-second budget that it spends back to back at the start
// of every second, which measures bursts of 100 concurrent requests, not a steady rate.
import { Pool } from 'undici';
import { cpuPerOrder, cpuSeconds } from './load.mjs';
import { steadyRequest } from './orders.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
  const startedAt = Date.now() + 20;
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
    startedAt,
    endedAt: startedAt + Math.round(elapsed * 1000),
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

/**
 * POST /v1/orders at a steady `rate` for `seconds`, after a warm-up at the same rate, on any target
 * { url, pid, key } that places the bench body (ours or the peer), so both sides of a ratio are
 * measured by the same code. openLoop()'s figures, the achieved rate and the CPU per order
 * including background work (cpuPerOrder).
 */
export async function steadyCreate(target, { rate, seconds, warmupSeconds = 0 }) {
  const request = steadyRequest(target.key);
  const warm =
    warmupSeconds > 0 ? await openLoop(target.url, request, { rate, seconds: warmupSeconds, expect: 201 }) : null;
  const cpu = await cpuPerOrder(target.pid, () =>
    openLoop(target.url, request, { rate, seconds, expect: 201, pid: target.pid }),
  );
  const r = cpu.result;
  return {
    ...r,
    achieved: r.completed / r.seconds,
    cpuMsPerOrder: cpu.cpuMsPerOrder,
    settleSeconds: cpu.settleSeconds,
    warmupCompleted: warm?.completed ?? 0,
  };
}

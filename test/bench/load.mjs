// autocannon runs with a warm-up. Every answer is checked against the expected status: a
// throughput of 404s or 429s would be a figure about the wrong thing, so those are counted and the
// scenario fails. With `pid`, the CPU the server process used during the measured run is reported
// too (a server below ~100% of one core is not the bottleneck: the client or the disk is), and the
// CPU of this process, where autocannon runs.
import fs from 'node:fs';
import autocannon from 'autocannon';

const CONNECTIONS = 100;
const CLOCK_TICKS_PER_S = 100; // USER_HZ on Linux

function once(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** CPU seconds (user + system) a process has used so far (Linux /proc). */
export function cpuSeconds(pid) {
  if (Array.isArray(pid)) return pid.reduce((sum, one) => sum + cpuSeconds(one), 0);
  if (!pid) return NaN;
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
}

/**
 * Waits until a process has used less than `threshold` of one core for two consecutive half
 * seconds (its background work after a load, e.g. reactors and projections catching up, is done),
 * at most `timeoutMs`. Returns the seconds it took, or NaN when it never settled.
 */
export async function waitIdle(pid, { threshold = 0.1, timeoutMs = 120_000 } = {}) {
  const started = performance.now();
  let quiet = 0;
  let last = cpuSeconds(pid);
  while (performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = cpuSeconds(pid);
    quiet = (now - last) / 0.5 < threshold ? quiet + 1 : 0;
    last = now;
    if (quiet >= 2) return (performance.now() - started) / 1000;
  }
  return NaN;
}

/**
 * Server CPU per order, background work included: the CPU seconds `pid` uses while `place()` runs
 * and then until it is idle again (waitIdle), divided by the orders `place()` reports
 * ({ completed }, as load() and openLoop() return). The same for ours (auto-accept, webhook
 * dispatch and projections run after the answer) and the peer.
 */
export async function cpuPerOrder(pid, place) {
  await waitIdle(pid);
  const before = cpuSeconds(pid);
  const result = await place();
  const settleSeconds = await waitIdle(pid);
  const total = cpuSeconds(pid) - before;
  return { cpuMsPerOrder: (total / result.completed) * 1000, settleSeconds, result };
}

/**
 * `request`: { method, path, headers, body, setupRequest }. Options: seconds or amount, warmupSeconds,
 * expect (status), connections, overallRate, pid. Returns requests/s with the expected status,
 * latency percentiles (ms), how many answers were wrong, and the server's CPU use.
 */
export async function load(
  baseUrl,
  request,
  { seconds, amount, warmupSeconds = 0, expect = 200, connections = CONNECTIONS, overallRate, pid },
) {
  const base = {
    url: baseUrl,
    connections,
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    requests: [{ path: request.path, ...(request.setupRequest ? { setupRequest: request.setupRequest } : {}) }],
    ...(overallRate ? { overallRate } : {}),
  };
  const warm = warmupSeconds > 0 ? await once({ ...base, duration: warmupSeconds }) : null;
  const cpuBefore = cpuSeconds(pid);
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const result = await once({ ...base, ...(amount ? { amount } : { duration: seconds }) });
  const elapsed = (performance.now() - started) / 1000;
  const cpu = (cpuSeconds(pid) - cpuBefore) / elapsed;
  const client = process.cpuUsage(clientBefore);
  const good = result.statusCodeStats?.[String(expect)]?.count ?? 0;
  const codes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([c, s]) => [c, s.count]));
  return {
    // autocannon's average counts every answer; only the expected ones count here.
    rps: good / result.duration,
    completed: good,
    bad: result.errors + (result.requests.total - good), // autocannon counts timeouts among errors
    codes,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: elapsed,
    latency: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    bytesPerAnswer: result.requests.total > 0 ? result.throughput.total / result.requests.total : 0,
    serverCpu: cpu,
    // autocannon runs in this process: near 100% of one core, the client is the bottleneck.
    clientCpu: (client.user + client.system) / 1e6 / elapsed,
    warmup: warm
      ? { completed: warm.statusCodeStats?.[String(expect)]?.count ?? 0, seconds: warm.duration }
      : { completed: 0, seconds: 0 },
  };
}

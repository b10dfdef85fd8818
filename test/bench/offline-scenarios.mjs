// Scenarios that run in their own process or service instance: projection lag, 1M-event rebuild,
// resident memory after 100,000 orders, and (once it exists) webhook delivery latency.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, cli, residentMb, startService } from './service.mjs';
import { load } from './load.mjs';
import { row } from './report.mjs';
import { createRequest } from './orders.mjs';
import { webhookLatency } from './webhook-latency.mjs';

const run = promisify(execFile);

async function node(script, args, timeoutMs) {
  const { stdout } = await run(process.execPath, [path.join(ROOT, script), ...args], {
    cwd: ROOT,
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

export const webhook = (ctx) => webhookLatency(ctx);

export async function projectionLag({ timing }) {
  const out = await node(
    'test/bench/projection-lag.mjs',
    ['--rate', '500', '--seconds', String(timing.lagSeconds)],
    300_000,
  );
  const r = JSON.parse(out.trim().split('\n').pop());
  return row('projection', 'event appended -> visible in the orders list projection: p99', {
    value: r.p99,
    unit: 'ms',
    target: '<= 20 ms',
    pass: r.lost === 0 && r.p99 <= 20,
    note: `${r.samples} order-stream appends at ${Math.round(r.rate)} orders/s placed in-process (synchronous=FULL); p50 ${r.p50.toFixed(1)} ms, max ${r.max.toFixed(1)} ms${r.lost ? `; ${r.lost} not visible within 5 s` : ''}`,
  });
}

export async function rebuild({ timing, quick }) {
  const script = 'test/bench/rebuild.mjs';
  const scenario = `rebuild of read models from ${(timing.rebuildOrders * 10).toLocaleString('en')} events`;
  const out = await node(script, ['--orders', String(timing.rebuildOrders)], 1_800_000);
  const match = /rebuilt .* from (\d+) events in ([\d.]+) s/.exec(out);
  if (!match)
    return row('rebuild', scenario, {
      target: '<= 10 s',
      note: `could not read the figure from ${script}: ${out.trim().slice(-300)}`,
    });
  const seconds = Number(match[2]);
  const events = Number(match[1]);
  return row('rebuild', scenario, {
    value: seconds,
    unit: 's',
    target: '<= 10 s',
    pass: quick ? null : events >= 1_000_000 && seconds <= 10,
    note: `${script}: ${out.trim().split('\n').pop()}${quick ? ' (quick run: fewer events, not comparable)' : ''}`,
  });
}

/**
 * A fresh service instance, 100,000 orders placed over HTTP (100 connections), then its VmRSS.
 * It runs with SQLITE_SYNCHRONOUS=NORMAL so that placing 100,000 orders takes minutes, not an hour,
 * on a disk with slow fsyncs: the setting changes when a commit reaches the disk, not what the
 * process keeps in memory.
 */
export async function memory({ tmp, timing, quick, log, nodeArgsFor }) {
  const dataDir = path.join(tmp, 'memory');
  fs.mkdirSync(dataDir);
  const partner = JSON.parse(
    await cli(dataDir, ['partners', 'create', '--name', 'Bench memory', '--rate-limit', '10000000', '--json']),
  );
  const svc = await startService({ dataDir, env: { SQLITE_SYNCHRONOUS: 'NORMAL' }, nodeArgs: nodeArgsFor('memory') });
  try {
    const startMb = residentMb(svc.pid).rss;
    const r = await load(svc.url, createRequest(partner.live_key), {
      amount: timing.memoryOrders,
      expect: 201,
      pid: svc.pid,
    });
    log(`memory: ${r.completed} orders in ${r.seconds.toFixed(0)} s`);
    // Let auto-accept and the projections finish with the last orders before reading.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const { rss, peak } = residentMb(svc.pid);
    return row('memory', `resident memory after ${r.completed.toLocaleString('en')} orders`, {
      value: rss,
      unit: 'MB',
      target: '<= 160 MB',
      pass: quick ? null : r.completed >= 100_000 && rss <= 160,
      note:
        `VmRSS of the service process; ${Math.round(startMb)} MB at start, peak ${Math.round(peak)} MB; orders placed at ${Math.round(r.rps)}/s with synchronous=NORMAL` +
        `${r.bad ? `; ${r.bad} answers were not 201 (${JSON.stringify(r.codes)}, ${r.errors} errors/timeouts)` : ''}${quick ? ' (quick run: fewer orders, not comparable)' : ''}`,
    });
  } finally {
    await svc.stop();
  }
}

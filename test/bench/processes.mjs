// Several processes on one host: the same service as one process and as two processes behind one
// port (cluster.mjs) on one DATA_DIR, each on a fresh directory, measured one after the other with
// the same loads as the single-process rows: GET of an order of 10 events, and creation (fresh key
// each, 100 connections, answered orders/s). No target: the row shows what a second process buys
// on this machine.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { cli, startService } from './service.mjs';
import { load, waitIdle } from './load.mjs';
import { row } from './report.mjs';
import { bearer, createRequest, orderWithHistory } from './orders.mjs';

async function measure({ tmp, timing, nodeArgsFor }, processes) {
  const dataDir = path.join(tmp, `processes-${processes}`);
  fs.mkdirSync(dataDir);
  const partner = JSON.parse(
    await cli(dataDir, ['partners', 'create', '--name', 'Bench', '--rate-limit', '10000000', '--json']),
  );
  const key = partner.live_key;
  const adminToken = randomBytes(24).toString('hex');
  const svc = await startService({
    dataDir,
    processes,
    env: { ADMIN_TOKEN: adminToken },
    nodeArgs: nodeArgsFor(`processes-${processes}`),
  });
  try {
    const order = await orderWithHistory(svc.url, key, adminToken, dataDir);
    await waitIdle(svc.pid);
    const get = await load(
      svc.url,
      { path: `/v1/orders/${order.id}`, headers: bearer(key) },
      { ...timing, pid: svc.pid },
    );
    await waitIdle(svc.pid);
    const create = await load(svc.url, createRequest(key), { ...timing, expect: 201, pid: svc.pid });
    await waitIdle(svc.pid);
    return { get, create };
  } finally {
    await svc.stop();
  }
}

export async function processes(ctx) {
  const one = await measure(ctx, 1);
  const two = await measure(ctx, 2);
  ctx.raw.processes = { one, two };
  const ok = (m) => m.get.bad === 0 && m.create.bad === 0;
  const figures = (m) =>
    `GET ${Math.round(m.get.rps)} req/s (CPU ${Math.round(m.get.serverCpu * 100)}%), ` +
    `create ${Math.round(m.create.rps)} orders/s (p99 ${m.create.latency.p99} ms, CPU ${Math.round(m.create.serverCpu * 100)}%)`;
  const ratio = (pick) => pick(two).rps / pick(one).rps;
  return [
    row('processes_get', 'GET /v1/orders/{id}, two processes on one port / one process', {
      value: ratio((m) => m.get) * 100,
      unit: '%',
      target: 'shown',
      pass: ok(one) && ok(two) ? null : false,
      note: `one process: ${figures(one)}; two processes: ${figures(two)} (CPU: one core = 100%)`,
    }),
    row('processes_create', 'POST /v1/orders, two processes on one port / one process', {
      value: ratio((m) => m.create) * 100,
      unit: '%',
      target: 'shown',
      pass: ok(one) && ok(two) ? null : false,
      note: [one, two]
        .map((m, i) =>
          m.create.bad || m.get.bad ? `${i + 1} process(es): ${m.get.bad + m.create.bad} bad answers` : '',
        )
        .filter(Boolean)
        .join('; '),
    }),
  ];
}

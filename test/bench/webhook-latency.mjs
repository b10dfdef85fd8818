// Event appended -> webhook received: a fresh service instance (synchronous=FULL,
// WEBHOOKS_ALLOW_PRIVATE_URLS=true) sends every event of one partner to a loopback receiver in
// this process. Orders are placed at a steady 100/s (open loop); each gives two events (order.created, then
// order.status_changed when the store auto-accepts it), so about 200 events/s. The latency of an
// event is its arrival time minus its `created` (when the change happened, taken just before the
// append commits: a slight overestimate, never an underestimate). Same machine, same clock. The load
// starts on the freshly started service; the note also gives the p99 without the first 2 s (not judged).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { cli, startService } from './service.mjs';
import { probeNote, probeSummary } from './probe-report.mjs';
import { randomUUID } from 'node:crypto';
import { openLoop } from './open-loop.mjs';
import { row } from './report.mjs';
import { bearer, orderBody } from './orders.mjs';

const ORDERS_PER_S = 100;
const EVENTS_PER_ORDER = 2;
/** The note also gives the p99 of the events created this long after the first one. */
const WARM_AFTER_MS = 2_000;

function receiver() {
  /** By event id: when the event was created and how long after that it arrived. */
  const received = new Map();
  let duplicates = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const arrived = Date.now();
      res.writeHead(204).end();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (req.headers['service-event-id'] !== event.id) throw new Error('Service-Event-Id does not match the body');
      const created = Date.parse(event.created);
      if (received.has(event.id)) duplicates++;
      else received.set(event.id, { created, lag: arrived - created });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/hook`,
        received,
        duplicates: () => duplicates,
        close: () => server.close(),
      }),
    ),
  );
}

export async function webhookLatency({ tmp, timing, log, nodeArgsFor, probeDir }) {
  const dataDir = path.join(tmp, 'webhooks');
  fs.mkdirSync(dataDir);
  const partner = JSON.parse(
    await cli(dataDir, ['partners', 'create', '--name', 'Bench webhooks', '--rate-limit', '10000000', '--json']),
  );
  const hooks = await receiver();
  const svc = await startService({
    dataDir,
    env: { WEBHOOKS_ALLOW_PRIVATE_URLS: 'true', SQLITE_SYNCHRONOUS: 'FULL' },
    nodeArgs: nodeArgsFor('webhook'),
  });
  try {
    const put = await fetch(`${svc.url}/v1/webhooks/endpoint`, {
      method: 'PUT',
      headers: { ...bearer(partner.live_key), 'content-type': 'application/json' },
      body: JSON.stringify({ url: hooks.url, events: ['order.created', 'order.status_changed'] }),
    });
    if (put.status !== 201) throw new Error(`PUT /v1/webhooks/endpoint answered ${put.status}: ${await put.text()}`);
    const request = {
      method: 'POST',
      path: '/v1/orders',
      body: orderBody(),
      headers: { ...bearer(partner.live_key), 'content-type': 'application/json' },
      perRequestHeaders: () => ({ 'idempotency-key': randomUUID() }),
    };
    const from = Date.now();
    const r = await openLoop(svc.url, request, {
      rate: ORDERS_PER_S,
      seconds: timing.seconds,
      expect: 201,
      pid: svc.pid,
    });
    const probe = probeSummary(probeDir, svc.pid, from, Date.now());
    const expected = r.completed * EVENTS_PER_ORDER;
    const deadline = Date.now() + 60_000;
    while (hooks.received.size < expected && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    log(`webhook: ${hooks.received.size} of ${expected} events received`);
    const events = [...hooks.received.values()];
    const lags = events.map((e) => e.lag).sort((a, b) => a - b);
    const pct = (q, list = lags) => list[Math.min(list.length - 1, Math.floor(q * list.length))] ?? NaN;
    // Not judged: the same without the service's first seconds (this scenario starts its load on a
    // freshly started service, with no warm-up, unlike the throughput rows).
    const start = Math.min(...events.map((e) => e.created));
    const warm = events
      .filter((e) => e.created >= start + WARM_AFTER_MS)
      .map((e) => e.lag)
      .sort((a, b) => a - b);
    const rate = expected / r.seconds;
    const complete = hooks.received.size >= expected;
    return row('webhook', 'event appended -> webhook received (loopback, 200 events/s): p99', {
      value: pct(0.99),
      unit: 'ms',
      target: '<= 100 ms',
      pass: r.bad === 0 && complete && rate >= 190 && pct(0.99) <= 100,
      note:
        `${hooks.received.size} of ${expected} events received at ${Math.round(rate)} events/s offered (${Math.round(r.completed / r.seconds)} orders/s, synchronous=FULL); ` +
        `p50 ${pct(0.5)} ms, max ${lags.at(-1)} ms; ${hooks.duplicates()} duplicates${r.bad ? `; ${r.bad} order answers were not 201` : ''}; ` +
        `not judged: p99 of the ${warm.length} events created after the first ${WARM_AFTER_MS / 1000} s ${pct(0.99, warm)} ms` +
        `${probe ? `; ${probeNote(probe)}` : ''}`,
    });
  } finally {
    await svc.stop();
    hooks.close();
  }
}

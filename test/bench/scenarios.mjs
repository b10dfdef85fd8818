// The service scenarios of issue 7, each returning table rows (see report.mjs). Targets are the
// issue's and are not adjusted here: a miss is reported as a miss.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { join } from 'node:path';
import { startBareExpress } from './service.mjs';
import { load, waitIdle } from './load.mjs';
import { openLoop } from './open-loop.mjs';
import { row } from './report.mjs';
import { bearer, freshKey, orderBody, orderWithHistory, placeOrder } from './orders.mjs';
import { LARGE_STORE_ID } from './large-catalog.mjs';
import { probeNote, probeSummary } from './probe-report.mjs';

const SEARCH = '/v1/search?q=shawarma&lat=29.3349&lng=48.0878';

/** A note about answers that were not the expected status (they make the row fail). */
function badNote(r, expect) {
  if (!r.bad) return '';
  const codes = Object.entries(r.codes)
    .filter(([c]) => c !== String(expect))
    .map(([c, n]) => `${n}x ${c}`);
  return `${r.bad} answers were not ${expect} (${[...codes, r.errors ? `${r.errors} errors/timeouts` : ''].filter(Boolean).join(', ')})`;
}

function cpuNote(r) {
  return Number.isFinite(r.serverCpu) ? `service CPU ${Math.round(r.serverCpu * 100)}% of one core` : '';
}

const notes = (...parts) => parts.filter(Boolean).join('; ');

/** A read scenario measured as a share of the bare Express baseline. */
async function ratioScenario(ctx, id, scenario, path, share, extraNote = '') {
  const r = await load(ctx.url, { path, headers: bearer(ctx.key) }, { ...ctx.timing, pid: ctx.pid });
  const ratio = r.rps / ctx.bareRps;
  ctx.raw[id] = r;
  // run.mjs judges the share again against the higher of the two baseline runs (see there).
  return {
    ...row(id, scenario, {
      value: r.rps,
      unit: 'req/s',
      ratio,
      target: `>= ${share * 100}% of bare`,
      pass: r.bad === 0 && ratio >= share,
      note: notes(badNote(r, 200), `p99 ${r.latency.p99} ms`, cpuNote(r), extraNote),
    }),
    share,
    allAnswersOk: r.bad === 0,
  };
}

export async function ping(ctx) {
  return ratioScenario(ctx, 'ping', 'GET /v1/ping (auth + rate limit + logging)', '/v1/ping', 0.7);
}

/**
 * The large menu. Next to it, the same bytes from a bare Express handler (a static buffer): the
 * most this stack and this client can do for a response of that size. It does not change the
 * target (40% of the small bare answer); it tells how much of a miss is the size alone. Then the
 * same length in ASCII: autocannon turns every answer into a string (UTF-8 decoding, far slower for
 * the menu's Arabic text), so the two together, with the client's CPU, show when the load
 * generator rather than the service sets the figure.
 */
export async function menu(ctx) {
  const path = `/v1/stores/${LARGE_STORE_ID}/menu`;
  const res = await fetch(ctx.url + path, { headers: bearer(ctx.key) });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`menu answered ${res.status}`);
  const blobFile = join(ctx.dataDir, '..', 'menu-response.json');
  fs.writeFileSync(blobFile, body);
  const blob = await startBareExpress({ blobFile });
  let ceiling;
  let ascii;
  try {
    ceiling = await load(blob.url, { path: '/blob' }, { ...ctx.timing, pid: blob.pid });
    ascii = await load(blob.url, { path: '/blob-ascii' }, { ...ctx.timing, pid: blob.pid });
  } finally {
    await blob.stop();
  }
  ctx.raw.menu_bytes_ceiling = ceiling;
  ctx.raw.menu_ascii_ceiling = ascii;
  // The judged row asks without Accept-Encoding (the menu as is, as every scenario has since the
  // start). Most HTTP clients ask for gzip; that figure is shown next to it, not judged.
  const result = await ratioScenario(ctx, 'menu', `GET /v1/stores/{id}/menu (${ctx.largeMenu.items} items)`, path, 0.4);
  await waitIdle(ctx.pid);
  const gzip = await load(
    ctx.url,
    { path, headers: { ...bearer(ctx.key), 'accept-encoding': 'gzip' } },
    { ...ctx.timing, pid: ctx.pid },
  );
  ctx.raw.menu_gzip = gzip;
  const clientCpu = (r) => `${Math.round(r.clientCpu * 100)}%`;
  result.note = notes(
    result.note,
    `response ${Math.round(body.length / 1024)} KB; bare Express sending the same bytes from memory: ` +
      `${Math.round(ceiling.rps)} req/s (the service reaches ${Math.round((result.value / ceiling.rps) * 100)}% of that)`,
    `the same length in ASCII: ${Math.round(ascii.rps)} req/s, ${Math.round((ascii.rps / ctx.bareRps) * 100)}% of bare`,
    `load generator CPU (one core = 100%): menu ${clientCpu(ctx.raw.menu)}, same bytes ${clientCpu(ceiling)}, ASCII ${clientCpu(ascii)}`,
    `not judged: with Accept-Encoding: gzip (${Math.round(gzip.bytesPerAnswer / 1024)} KB answers) ${Math.round(gzip.rps)} req/s, ` +
      `${Math.round((gzip.rps / ctx.bareRps) * 100)}% of bare${gzip.bad ? `, ${gzip.bad} bad answers` : ''}`,
  );
  return result;
}

export async function search(ctx) {
  const res = await fetch(ctx.url + SEARCH, { headers: bearer(ctx.key) });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`search answered ${res.status}`);
  return ratioScenario(
    ctx,
    'search',
    'GET /v1/search?q=shawarma&lat&lng',
    SEARCH,
    0.3,
    `${body.data.stores.length} stores + ${body.data.items.length} items per answer`,
  );
}

export async function orderGet(ctx) {
  const order = await orderWithHistory(ctx.url, ctx.key, ctx.adminToken, ctx.dataDir);
  return ratioScenario(
    ctx,
    'order_get',
    `GET /v1/orders/{id} (stream of ${order.events} events)`,
    `/v1/orders/${order.id}`,
    0.3,
  );
}

const createRequest = (ctx) => ({
  method: 'POST',
  path: '/v1/orders',
  body: orderBody(),
  headers: { ...bearer(ctx.key), 'content-type': 'application/json' },
  setupRequest: freshKey,
});

/**
 * POST /v1/orders with a fresh key per request, as fast as the service answers. Answering is not
 * all the work: each order also wakes auto-accept (a second append), the webhook dispatcher and
 * the projections, which may fall behind under full load and catch up afterwards. "Sustained"
 * counts that: every order placed (warm-up included) over the time until the service is idle
 * again. The answered rate is shown next to it.
 */
export async function createMax(ctx) {
  const r = await load(ctx.url, createRequest(ctx), { ...ctx.timing, expect: 201, pid: ctx.pid });
  const settle = await waitIdle(ctx.pid);
  // waitIdle needs two quiet half seconds to call the service idle: that second is not work.
  const catchUp = Math.max(0, settle - 1);
  const orders = r.completed + r.warmup.completed;
  const sustained = Number.isFinite(settle) ? orders / (r.warmup.seconds + r.seconds + catchUp) : NaN;
  ctx.raw.create_max = { ...r, settleSeconds: settle, sustained };
  ctx.ordersPlaced += orders;
  ctx.createRps = r.rps;
  return row('create_max', `POST /v1/orders, unique keys, synchronous=${ctx.synchronous}, sustained`, {
    value: sustained,
    unit: 'orders/s',
    ratio: null,
    target: '>= 1,000 orders/s',
    pass: ctx.synchronous !== 'FULL' ? null : r.bad === 0 && sustained >= 1000,
    note: notes(
      badNote(r, 201),
      `answered ${Math.round(r.rps)} orders/s for ${Math.round(r.seconds)} s (p99 ${r.latency.p99} ms), then ${catchUp.toFixed(1)} s until auto-accept, webhook dispatch and projections had caught up`,
      cpuNote(r),
    ),
  });
}

/** The same at a steady 500 requests/s (open loop, latency from each request's due time): p99. */
export async function create500(ctx) {
  const { setupRequest: _, ...request } = createRequest(ctx);
  const steady = { ...request, perRequestHeaders: () => ({ 'idempotency-key': randomUUID() }) };
  const warm = await openLoop(ctx.url, steady, { rate: 500, seconds: ctx.timing.warmupSeconds, expect: 201 });
  ctx.ordersPlaced += warm.completed;
  await waitIdle(ctx.pid);
  const from = Date.now();
  const r = await openLoop(ctx.url, steady, { rate: 500, seconds: ctx.timing.seconds, expect: 201, pid: ctx.pid });
  const probe = probeSummary(ctx.probeDir, ctx.pid, from, Date.now());
  ctx.raw.create_500 = { ...r, probe };
  ctx.ordersPlaced += r.completed;
  const achieved = r.completed / r.seconds;
  return row('create_p99_500', `POST /v1/orders at a steady 500/s, synchronous=${ctx.synchronous}: p99`, {
    value: r.latency.p99,
    unit: 'ms',
    target: '<= 25 ms',
    pass: ctx.synchronous !== 'FULL' ? null : r.bad === 0 && r.latency.p99 <= 25 && achieved >= 475,
    note: notes(
      badNote(r, 201),
      `achieved ${Math.round(achieved)} orders/s`,
      `p50 ${r.latency.p50} ms, p90 ${r.latency.p90} ms, max ${r.latency.max} ms`,
      cpuNote(r),
      probeNote(probe),
    ),
  });
}

/** The same key and body again and again: the answer is a replay (200, Idempotent-Replayed). */
export async function replay(ctx) {
  const key = randomUUID();
  await placeOrder(ctx.url, ctx.key, key);
  ctx.ordersPlaced += 1;
  const r = await load(
    ctx.url,
    {
      ...createRequest(ctx),
      setupRequest: undefined,
      headers: { ...createRequest(ctx).headers, 'idempotency-key': key },
    },
    { ...ctx.timing, expect: 200, pid: ctx.pid },
  );
  ctx.raw.replay = r;
  const times = r.rps / ctx.createRps;
  return row('replay', 'POST /v1/orders replay (same key, same body)', {
    value: r.rps,
    unit: 'req/s',
    ratio: r.rps / ctx.bareRps,
    target: '>= 2x the create rate',
    pass: Number.isFinite(times) ? r.bad === 0 && times >= 2 : null,
    note: notes(
      badNote(r, 200),
      Number.isFinite(times) ? `${times.toFixed(1)}x the create rate` : 'create_max was not run: not judged',
      `p99 ${r.latency.p99} ms`,
      cpuNote(r),
    ),
  });
}

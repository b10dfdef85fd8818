// The peer of issue 25 in the bench: the emmett app of test/bench/peers/emmett-orders.mjs, started
// as a child process and measured with the same load helpers and parameters as our rows, each run
// next to ours, once both are idle (scenarios.mjs peerCounterpart and steadyRounds; open-loop.mjs
// steadyCreate and load.mjs cpuPerOrder take either), its memory row after our offline rows
// (run.mjs). peerRows turns ours and the peer's figures into the ours/peer column and the rows
// judged against the peer.
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ROOT, freePort, residentMb, stopChild } from './service.mjs';
import { load, waitIdle } from './load.mjs';
import { bearer, createRequest, placeOrder } from './orders.mjs';
import { row } from './report.mjs';

const PEER_KEY = 'peer-bench-key';

/**
 * Starts the peer on `dataDir` (its database is dataDir/events.db). `synchronous` is left unset
 * (node-sqlite3's default, FULL) but for the memory row. Returns { url, pid, key, dataDir, stderr, stop }.
 */
export async function startPeer({ dataDir, nodeArgs = [], synchronous } = {}) {
  const port = await freePort();
  const { SQLITE_SYNCHRONOUS: _, ...inherited } = process.env;
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'test/bench/peers/emmett-orders.mjs')], {
    cwd: ROOT,
    env: {
      ...inherited,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PEER_API_KEY: PEER_KEY,
      ...(synchronous ? { SQLITE_SYNCHRONOUS: synchronous } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stderr.on('data', (chunk) => {
    text = (text + chunk.toString()).slice(-4000);
  });
  const stderr = () => text;
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`the emmett peer exited (${code}): ${stderr()}`)));
  });
  // Past the port line, emmett-sqlite writes a rolled-back transaction's error to stdout: keep
  // reading it, so a full pipe never blocks the peer.
  child.stdout.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    key: PEER_KEY,
    dataDir,
    stderr,
    stop: () => stopChild(child),
  };
}

/**
 * The peer's counterpart of orders.mjs orderWithHistory: a card order placed, paid, accepted,
 * preparing, rider assigned, ready, picked up, delivered, refunded in two parts. Returns its id and
 * how many events its stream holds (10).
 */
export async function peerOrderWithHistory(peer) {
  const order = await placeOrder(peer.url, peer.key, randomUUID(), { payment_method: 'card' });
  const steps = [
    ['pay', {}],
    ['accept', {}],
    ['start', {}],
    ['assign-rider', { name: 'Ali', phone: '+96550002222', vehicle: 'motorbike' }],
    ['ready', {}],
    ['pickup', {}],
    ['deliver', {}],
    ['refund', { amount: 0.5 }],
    ['refund', {}],
  ];
  for (const [action, body] of steps) {
    const res = await fetch(`${peer.url}/v1/orders/${order.id}/${action}`, {
      method: 'POST',
      headers: { ...bearer(peer.key), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`peer ${action} answered ${res.status}: ${await res.text()}`);
  }
  const db = new Database(path.join(peer.dataDir, 'events.db'), { readonly: true, fileMustExist: true });
  try {
    const { n } = db.prepare('SELECT count(*) AS n FROM emt_messages WHERE stream_id = ?').get(`order-${order.id}`);
    return { id: order.id, events: n };
  } finally {
    db.close();
  }
}

/**
 * GET /v1/orders/{id} of an order with a history of 10 events, 100 connections, as our order_get
 * row (timing: { seconds, warmupSeconds }). Returns load()'s figures (rps = answered 200/s) and
 * the stream's event count.
 */
export async function peerOrderGet(peer, timing) {
  const order = await peerOrderWithHistory(peer);
  await waitIdle(peer.pid);
  const r = await load(
    peer.url,
    { path: `/v1/orders/${order.id}`, headers: bearer(peer.key) },
    { ...timing, pid: peer.pid },
  );
  return { ...r, events: order.events };
}

/**
 * POST /v1/orders with a fresh key per request, 100 connections, as fast as it answers (our
 * create_max row): rps = answered 201/s. Also the time until the process is idle again and the
 * sustained rate counted as ours is (every order, warm-up included, over the time until idle).
 */
export async function peerCreateMax(peer, timing) {
  await waitIdle(peer.pid);
  const r = await load(peer.url, createRequest(peer.key), { ...timing, expect: 201, pid: peer.pid });
  const settle = await waitIdle(peer.pid);
  const catchUp = Math.max(0, settle - 1);
  const orders = r.completed + r.warmup.completed;
  const sustained = Number.isFinite(settle) ? orders / (r.warmup.seconds + r.seconds + catchUp) : NaN;
  return { ...r, settleSeconds: settle, sustained };
}

/**
 * The peer's memory row: a fresh peer on its own directory under `tmp`, `orders` orders placed over
 * HTTP (100 connections, fresh keys), 3 s to settle, then its VmRSS (MB), as offline-scenarios.mjs
 * memory does for ours (also at synchronous=NORMAL, for the same reason).
 */
export async function peerMemory({ tmp, orders, nodeArgs = [], log = () => {} }) {
  const dataDir = path.join(tmp, 'peer-memory');
  fs.mkdirSync(dataDir, { recursive: true });
  const peer = await startPeer({ dataDir, nodeArgs, synchronous: 'NORMAL' });
  try {
    const startMb = residentMb(peer.pid).rss;
    const r = await load(peer.url, createRequest(peer.key), { amount: orders, expect: 201, pid: peer.pid });
    log(`peer memory: ${r.completed} orders in ${r.seconds.toFixed(0)} s`);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const { rss, peak } = residentMb(peer.pid);
    return { rss, peak, startMb, completed: r.completed, rps: r.rps, bad: r.bad, codes: r.codes, errors: r.errors };
  } finally {
    await peer.stop();
  }
}

/** Our rows with a counterpart on the peer, each measured on it next to ours. */
export const PEER_ROWS = ['order_get', 'create_max', 'create_500', 'create_200'];

/** The share of an offered rate a side must achieve for its latency to describe that rate. */
export const KEPT_UP = 0.95;

/**
 * The steady loads whose rows are judged against the peer: the offered rate, the ratio each is
 * judged by (ours over the peer's, lower is better for ours), and whether a round counts only when
 * the peer kept up with the rate. CPU per order is a cost per order at whatever rate the peer
 * reached (its rate is in the note); a p99 behind a growing backlog measures the backlog, not the
 * rate, so that row needs a peer that kept up.
 */
export const PEER_JUDGED = {
  create_500: { rate: 500, ratio: (ours, peer) => ours.cpuMsPerOrder / peer.cpuMsPerOrder, peerMustKeepUp: false },
  create_200: { rate: 200, ratio: (ours, peer) => ours.latency.p99 / peer.latency.p99, peerMustKeepUp: true },
};

/** A run of ours that answered every request as expected. */
export const answeredAll = (r) => r.bad === 0 && r.completed > 0;

/** Why a round ({ ours, peer, ratio }) cannot judge the row `judge` (PEER_JUDGED), or null. */
export function notComparable(round, judge) {
  if (!round.peer) return 'no peer';
  if (round.peer.bad > 0) return 'the peer failed answers';
  if (judge.peerMustKeepUp && !(round.peer.achieved >= KEPT_UP * judge.rate)) return 'the peer fell behind';
  return Number.isFinite(round.ratio) ? null : 'no ratio';
}

/**
 * Which of the rounds a judged row reports, and whether it can judge the row: a round where ours
 * failed answers (the row fails); else the median ratio among the comparable rounds (notComparable),
 * the higher of the two middle ones when their number is even; else the first, not comparable (the
 * row is not judged).
 */
export function judgedRound(rounds, judge) {
  const failed = rounds.findIndex((r) => !answeredAll(r.ours));
  if (failed >= 0) return { index: failed, comparable: notComparable(rounds[failed], judge) === null };
  const ranked = rounds
    .map((r, index) => ({ ratio: r.ratio, index }))
    .filter(({ index }) => notComparable(rounds[index], judge) === null)
    .sort((a, b) => a.ratio - b.ratio);
  return ranked.length
    ? { index: ranked[Math.floor(ranked.length / 2)].index, comparable: true }
    : { index: 0, comparable: false };
}

/**
 * A judged row's result: null at NORMAL (the peer runs at FULL); ours failing answers fails it; a
 * round that cannot judge it leaves it unjudged (null); else whether the ratio is within `limit`.
 */
export function judgedPass({ synchronous, ours, comparable, ratio, limit }) {
  if (synchronous !== 'FULL') return null;
  if (!answeredAll(ours)) return false;
  return comparable ? ratio <= limit : null;
}

/**
 * The ours/peer figure of each row with a counterpart (`row.peer`: { value, ratio, note }), and two
 * rows judged against the peer (PEER_JUDGED), from the round judgedRound picks: p99 at a steady
 * 200/s (at most 1.2x the peer's) and CPU per order at 500/s including background work (at most the
 * peer's).
 */
export function peerRows(rows, ours, peer, synchronous) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const attach = (id, value, unit) => {
    const r = byId.get(id);
    if (!r || !Number.isFinite(value)) return;
    r.peer = { value, ratio: r.value / value, unit };
  };
  if (peer.order_get) attach('order_get', peer.order_get.rps, 'req/s');
  if (peer.create_max) attach('create_max', peer.create_max.sustained, 'orders/s');
  if (peer.create_500) attach('create_p99_500', peer.create_500.latency.p99, 'ms');
  if (peer.memory) attach('memory', peer.memory.rss, 'MB');
  const peerNote = (p) =>
    `the peer: achieved ${Math.round(p.achieved)} orders/s, p50 ${p.latency.p50} ms, p99 ${p.latency.p99} ms` +
    `${p.bad ? `, ${p.bad} answers not 201` : ''}`;
  const added = [];
  // The judged rows take ours and the peer's figures from the round judgedRound chose.
  const judgedRow = (id, limit, build) => {
    const rounds = ours[`${id}_rounds`];
    if (!rounds?.length) return;
    const judge = PEER_JUDGED[id];
    const { index, comparable } = judgedRound(rounds, judge);
    const { ours: o, peer: p, ratio } = rounds[index];
    if (!o || !p) return;
    const byRound =
      rounds.length < 2
        ? ''
        : `; ours/peer by round: ${rounds
            .map((r) => {
              const why = notComparable(r, judge);
              return `${r.ratio.toFixed(2)}${r.peerFirst ? ' (the peer first)' : ''}${why ? ` (left out: ${why})` : ''}`;
            })
            .join(', ')}; round ${index + 1} reported`;
    const unjudged = comparable
      ? ''
      : `; not judged: no round where the peer answered every request${judge.peerMustKeepUp ? ` and kept up with ${judge.rate}/s` : ''}`;
    const pass = judgedPass({ synchronous, ours: o, comparable, ratio, limit });
    added.push(build(o, p, ratio, pass, `${byRound}${unjudged}`));
  };
  judgedRow('create_200', 1.2, (o200, p200, ratio, pass, rounds) => ({
    ...row('create_200_p99', 'POST /v1/orders at a steady 200/s: p99, against the peer', {
      value: o200.latency.p99,
      unit: 'ms',
      target: "<= 1.2x the peer's",
      pass,
      note: `ours: p50 ${o200.latency.p50} ms, p99 ${o200.latency.p99} ms; ${peerNote(p200)}${rounds}`,
    }),
    peer: { value: p200.latency.p99, ratio, unit: 'ms' },
  }));
  judgedRow('create_500', 1, (o500, p500, ratio, pass, rounds) => ({
    ...row('cpu_500', 'CPU per order at a steady 500/s, background work included', {
      value: o500.cpuMsPerOrder,
      unit: 'ms',
      target: "<= the peer's",
      pass,
      note:
        `CPU seconds of the service process from the first order until idle again, per order; ` +
        `the peer ${p500.cpuMsPerOrder.toFixed(2)} ms (${peerNote(p500)})${rounds}`,
    }),
    peer: { value: p500.cpuMsPerOrder, ratio, unit: 'ms' },
  }));
  return added;
}

import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { ensureBuilt, runCli, startChildService, type ChildService } from '../support/child-service.js';
import { runCliAsync } from '../support/cli-async.js';
import { requireMongoUrl, uniqueDbName, mongoReadStoreEnv } from '../support/mongo-server.js';
import { orderBody } from '../support/orders.js';
import {
  startWebhookRecorder,
  verifyDocumented,
  type Receipt,
  type RecordedEvent,
  type WebhookRecorder,
} from '../support/webhook-recorder.js';

/**
 * Several replicas (docs/reliability.md, DESIGN "Several replicas"): three service processes share
 * one DATA_DIR (the embedded event log; SQLite WAL across processes) and one MongoDB read store.
 * Clients place live orders through all of them and drive each order through its whole life with
 * the operations API, retrying on another replica whenever one does not answer; meanwhile a random
 * replica is killed with SIGKILL and restarted on the same DATA_DIR, again and again. A first phase
 * without kills is the control: there, no webhook may arrive twice.
 *
 * Afterwards: every acknowledged order exists once, no key made two orders, every webhook the
 * orders' histories imply arrived, signed, in each order's own order, and every duplicate is
 * explained by a kill (the sender died between its POST and recording the outcome).
 */
const REPLICAS = 3;
const CLIENTS = Number(process.env.REPLICA_CLIENTS ?? 4);
const KILLS = Number(process.env.REPLICA_KILLS ?? 12);
/** Orders completed (placed and driven to the end) before the first kill: the control phase. */
const CONTROL_ORDERS = 20;
const SEED = Number(process.env.FAULT_SEED ?? 20261207);
/**
 * Time from one kill to the next (ms, uniform). The killed replica restarts in the background
 * meanwhile (a start takes seconds on a busy machine), so two may be down at once, never all three.
 */
const KILL_GAP_MS: readonly [number, number] = [3_500, 6_500];
/** A client's think time between two requests of an order's life (ms, uniform): keeps the run at a few hundred orders. */
const THINK_MS: readonly [number, number] = [50, 250];
/** docs/webhooks.md: an attempt ends at most 8 s after it started (reply wait). */
const ATTEMPT_TIMEOUT_MS = 8_000;
/** A request already written by a process can reach the receiver a little after the SIGKILL. */
const KILL_BEFORE_RECEIPT_SLACK_MS = 2_000;
/** How long the survivors get, after the clients stopped, to deliver every expected webhook. */
const DRAIN_MS = 120_000;
/** Stored histories read with the CLI (each run costs seconds), besides orders a client left unfinished. */
const HISTORY_SAMPLE = 8;
const REQUEST_TIMEOUT_MS = 15_000;
/** A client gives up on one request (retried on every replica) after this long. */
const REQUEST_DEADLINE_MS = 120_000;
const START_TIMEOUT_MS = 120_000;
const ADMIN_TOKEN = `replicas-admin-${randomBytes(12).toString('hex')}`;
const RIDER = { name: 'Replica Rider', phone: '+96555512345', vehicle: 'motorbike' };

const mongoUrl = requireMongoUrl('several replicas (fault test, mongodb)');

function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const random = prng(SEED);
/** Times in the output are seconds since the test started. */
let t0 = Date.now();
const at = (ms: number) => `+${((ms - t0) / 1000).toFixed(1)}s`;
const between = ([lo, hi]: readonly [number, number]) => lo + random() * (hi - lo);
/** Pacing only (kill spacing, a client's back-off); nothing waits on a timer for a state. */
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `condition` until it holds or `timeoutMs` passes; true when it held. */
async function waitUntil(condition: () => boolean, timeoutMs: number, everyMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await pause(everyMs);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The replicas: three `node dist/src/main.js` on one DATA_DIR, killed and restarted by index.

interface Slot {
  index: number;
  service: ChildService | null;
  starts: number;
}

class Replicas {
  readonly slots: Slot[] = Array.from({ length: REPLICAS }, (_, index) => ({ index, service: null, starts: 0 }));
  readonly kills: Array<{ at: number; replica: number }> = [];
  /** Lines the processes logged at error/fatal level, or wrote to stderr as plain text. */
  readonly errorLines: string[] = [];
  readonly unexpectedExits: string[] = [];
  /** How long each start took until the process listened (ms). */
  readonly startMs: number[] = [];
  private rr = 0;

  constructor(
    private readonly dataDir: string,
    private readonly env: Record<string, string>,
  ) {}

  up(): Slot[] {
    return this.slots.filter((s) => s.service !== null);
  }

  /** Round robin over the replicas that are up; waits (bounded by `deadline`) while none is. */
  async next(deadline: number): Promise<Slot & { service: ChildService }> {
    for (;;) {
      const up = this.up();
      if (up.length > 0) return up[this.rr++ % up.length] as Slot & { service: ChildService };
      if (Date.now() > deadline) throw new Error('no replica is up');
      await waitUntil(() => this.up().length > 0, 1_000, 50);
    }
  }

  async start(index: number): Promise<void> {
    const slot = this.slots[index]!;
    const begun = Date.now();
    const service = await startChildService(this.dataDir, this.env, START_TIMEOUT_MS);
    this.startMs.push(Date.now() - begun);
    slot.starts++;
    this.watch(service, index);
    slot.service = service;
    void service.exited.then((code) => {
      if (slot.service !== service) return; // killed or stopped by the test
      this.unexpectedExits.push(
        `replica ${index} exited by itself with code ${code}: ${service.output().slice(-1500)}`,
      );
      slot.service = null;
    });
  }

  async kill(index: number): Promise<void> {
    const slot = this.slots[index]!;
    const service = slot.service;
    if (!service) return;
    slot.service = null;
    this.kills.push({ at: Date.now(), replica: index });
    service.child.kill('SIGKILL');
    await service.exited;
  }

  /** SIGTERM to every replica; the exit code of each (null: had to be killed after 60 s). */
  async stopAll(): Promise<Array<number | null>> {
    return Promise.all(
      this.slots.map(async (slot) => {
        const service = slot.service;
        if (!service) return null;
        slot.service = null;
        service.child.kill('SIGTERM');
        const timer = setTimeout(() => service.child.kill('SIGKILL'), 60_000);
        const code = await service.exited;
        clearTimeout(timer);
        return code;
      }),
    );
  }

  killAllNow(): void {
    for (const slot of this.slots) {
      slot.service?.child.kill('SIGKILL');
      slot.service = null;
    }
  }

  private watch(service: ChildService, index: number): void {
    const check = (line: string) => {
      const text = line.trim();
      if (!text) return;
      try {
        const entry = JSON.parse(text) as { level?: number; time?: number; msg?: string; err?: { message?: string } };
        if ((entry.level ?? 0) >= 50) {
          this.errorLines.push(
            `replica ${index} ${entry.time ? at(entry.time) : ''}: ${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}`,
          );
        }
      } catch {
        this.errorLines.push(`replica ${index} (plain output): ${text.slice(0, 300)}`);
      }
    };
    for (const line of service.output().split('\n')) check(line);
    let partial = '';
    const onData = (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) check(line);
    };
    service.child.stdout!.on('data', onData);
    service.child.stderr!.on('data', onData);
  }
}

// ---------------------------------------------------------------------------------------------
// What an order's history implies (docs/webhooks.md "Which order changes send which events").

interface HistoryStep {
  type: string;
  status_after: string;
  payment_status_after: string;
}
interface ExpectedWebhook {
  type: string;
  status: string;
  payment: string;
  previous_status?: string;
}
const webhookKey = (w: { type: string; status: string; payment: string }) => `${w.type}|${w.status}|${w.payment}`;

function webhooksImpliedBy(history: HistoryStep[]): ExpectedWebhook[] {
  const out: ExpectedWebhook[] = [];
  let before: HistoryStep | null = null;
  for (const e of history) {
    const now = { status: e.status_after, payment: e.payment_status_after };
    if (e.type === 'OrderPlaced' || !before) out.push({ type: 'order.created', ...now });
    else {
      if (before.status_after !== e.status_after)
        out.push({ type: 'order.status_changed', ...now, previous_status: before.status_after });
      // A refund always changes payment.refunded_amount; payment facts always send one.
      if (
        before.payment_status_after !== e.payment_status_after ||
        ['OrderRefunded', 'PaymentSucceeded', 'PaymentFailed'].includes(e.type)
      ) {
        out.push({ type: 'order.payment_updated', ...now });
      }
      if (e.type === 'OrderRefunded') out.push({ type: 'order.refunded', ...now });
    }
    before = e;
  }
  return out;
}

/** The life the clients give every order: a cash delivery order of an auto-accept store, refunded in full. */
const LIFE: HistoryStep[] = [
  { type: 'OrderPlaced', status_after: 'placed', payment_status_after: 'pending' },
  { type: 'OrderAccepted', status_after: 'confirmed', payment_status_after: 'pending' },
  { type: 'OrderPreparationStarted', status_after: 'preparing', payment_status_after: 'pending' },
  { type: 'OrderPacked', status_after: 'ready', payment_status_after: 'pending' },
  { type: 'RiderAssigned', status_after: 'ready', payment_status_after: 'pending' },
  { type: 'OrderPickedUp', status_after: 'out_for_delivery', payment_status_after: 'pending' },
  { type: 'OrderDelivered', status_after: 'delivered', payment_status_after: 'paid' },
  { type: 'OrderRefunded', status_after: 'refunded', payment_status_after: 'refunded' },
];
const RANK = new Map(
  ['placed', 'confirmed', 'preparing', 'ready', 'out_for_delivery', 'delivered', 'refunded'].map((s, i) => [s, i]),
);
const rank = (status: string) => RANK.get(status) ?? -1;
/** The history of an order of LIFE that is now in `status` (the path is linear). */
const lifeUpTo = (status: string) => LIFE.filter((e) => rank(e.status_after) <= rank(status));

/** The operations that drive an order along LIFE, and the status each one reaches. */
const STEPS: Array<{ action: string; reaches: string; body?: Record<string, unknown> }> = [
  { action: 'accept', reaches: 'confirmed' }, // the store auto-accepts too: a 409 with the order confirmed is fine
  { action: 'start', reaches: 'preparing' },
  { action: 'ready', reaches: 'ready' },
  { action: 'assign-rider', reaches: 'ready', body: RIDER },
  { action: 'pickup', reaches: 'out_for_delivery' },
  { action: 'deliver', reaches: 'delivered' },
  { action: 'refund', reaches: 'refunded' },
];

// ---------------------------------------------------------------------------------------------

let dataDir: string | undefined;
let replicas: Replicas | undefined;
let recorder: WebhookRecorder | undefined;
let dbName: string | undefined;

afterAll(async () => {
  replicas?.killAllNow();
  await recorder?.close();
  if (mongoUrl && dbName) {
    const client = new MongoClient(mongoUrl);
    await client.connect();
    await client
      .db(dbName)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: {
    data?: Record<string, unknown> & { id?: string; status?: string; reference?: string };
    error?: { code?: string; message?: string };
  } & Record<string, unknown>;
  replica: number;
}

describe.skipIf(!mongoUrl)(
  `several replicas: ${REPLICAS} processes on one DATA_DIR and MongoDB, ${KILLS} kill -9`,
  () => {
    it('when replicas are killed while clients retry on the others, then orders exist once and every webhook arrives signed, in order, and twice only after a kill', async () => {
      ensureBuilt();
      const started = Date.now();
      t0 = started;
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pos-replicas-'));
      dbName = uniqueDbName('replicas');
      const env: Record<string, string> = {
        ...mongoReadStoreEnv(mongoUrl!, dbName),
        WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
        ADMIN_TOKEN,
        SQLITE_SYNCHRONOUS: 'NORMAL',
      };
      const created = runCli(
        dataDir,
        ['partners', 'create', '--name', 'Replicas', '--rate-limit', '1000000', '--json'],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const liveKey = (JSON.parse(created.stdout) as { live_key: string }).live_key;

      recorder = await startWebhookRecorder();
      const pool = new Replicas(dataDir, env);
      replicas = pool;
      // All three at once, as a deployment starts them: a start-up race must show here.
      const starts = await Promise.allSettled(pool.slots.map((s) => pool.start(s.index)));
      const startErrors = starts.flatMap((r) =>
        r.status === 'rejected' ? [String((r.reason as Error).message ?? r.reason)] : [],
      );
      expect(startErrors, 'replicas that failed to start together on one DATA_DIR').toEqual([]);
      const startedAt = Date.now();

      // ---- HTTP with retries on the other replicas ------------------------------------------
      const stats = {
        requests: 0,
        connectionErrors: 0,
        serverErrors: 0,
        serverErrorSamples: [] as string[],
        alreadyApplied: 0,
        replayed200: 0,
      };
      const request = async (
        label: string,
        method: 'GET' | 'POST' | 'PUT',
        urlPath: string,
        options: { auth: string; body?: string; idempotencyKey?: string },
      ): Promise<Answer> => {
        const deadline = Date.now() + REQUEST_DEADLINE_MS;
        for (let attempt = 0; ; attempt++) {
          const slot = await pool.next(deadline);
          stats.requests++;
          try {
            const res = await fetch(`${slot.service.url}${urlPath}`, {
              method,
              headers: {
                Authorization: `Bearer ${options.auth}`,
                ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
                ...(options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {}),
              },
              ...(options.body !== undefined ? { body: options.body } : {}),
              signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
            });
            const text = await res.text();
            if (res.status < 500) {
              let body: Answer['body'] = {};
              try {
                body = JSON.parse(text) as Answer['body'];
              } catch {
                body = { raw: text };
              }
              return { status: res.status, body, replica: slot.index };
            }
            stats.serverErrors++;
            if (stats.serverErrorSamples.length < 10)
              stats.serverErrorSamples.push(`${label} on replica ${slot.index}: ${res.status} ${text.slice(0, 300)}`);
          } catch {
            // Refused, reset, or no answer in time: the same request again on another replica.
            stats.connectionErrors++;
          }
          if (Date.now() > deadline)
            throw new Error(
              `${label}: no replica answered below 500 within ${REQUEST_DEADLINE_MS} ms (${attempt + 1} tries)`,
            );
          await pause(Math.min(25 * 2 ** Math.min(attempt, 6), 1_000));
        }
      };

      // ---- the webhook endpoint -------------------------------------------------------------
      const registered = await request('register endpoint', 'PUT', '/v1/webhooks/endpoint', {
        auth: liveKey,
        body: JSON.stringify({ url: recorder.url }),
      });
      expect(registered.status, JSON.stringify(registered.body)).toBe(201);
      const secret = registered.body.data!.secret as string;
      expect(secret).toMatch(/^whsec_/);

      // First receipts per order, as they arrive: what has arrived of each order.
      const firstSeen = new Map<string, Receipt>();
      const arrivedKeys = new Map<string, Set<string>>();
      recorder.onReceipt((r) => {
        const e = r.event;
        if (!e?.id || firstSeen.has(e.id)) return;
        firstSeen.set(e.id, r);
        const order = e.data.order;
        if (!order) return;
        const keys = arrivedKeys.get(order.id) ?? new Set<string>();
        keys.add(webhookKey({ type: e.type, status: order.status, payment: order.payment.status }));
        arrivedKeys.set(order.id, keys);
      });
      const hasAll = (orderId: string, expected: ExpectedWebhook[]) => {
        const keys = arrivedKeys.get(orderId);
        return expected.every((w) => keys?.has(webhookKey(w)));
      };

      // ---- clients ---------------------------------------------------------------------------
      interface Ack {
        key: string;
        id: string;
        status: number;
        at: number;
      }
      const acks: Ack[] = [];
      const completed: string[] = [];
      const clientErrors: string[] = [];
      let running = true;

      const operate = async (orderId: string, step: (typeof STEPS)[number]) => {
        const label = `${step.action} ${orderId}`;
        const res = await request(label, 'POST', `/internal/orders/${orderId}/${step.action}`, {
          auth: ADMIN_TOKEN,
          body: JSON.stringify(step.body ?? {}),
        });
        if (res.status === 200) {
          if (res.body.data?.status !== step.reaches)
            throw new Error(`${label}: 200 with status ${String(res.body.data?.status)}, expected ${step.reaches}`);
          return;
        }
        // 409/422: refused in the order's present state. Fine only when that state shows the step
        // applied (an earlier try whose answer was lost, or the store's own auto-accept).
        if (res.status === 409 || res.status === 422) {
          const now = await request(`read ${orderId}`, 'GET', `/v1/orders/${orderId}`, { auth: liveKey });
          const status = String(now.body.data?.status);
          if (now.status === 200 && rank(status) >= rank(step.reaches)) {
            stats.alreadyApplied++;
            return;
          }
          throw new Error(`${label}: ${res.status} ${JSON.stringify(res.body.error)} while the order is ${status}`);
        }
        throw new Error(`${label}: unexpected ${res.status} ${JSON.stringify(res.body)}`);
      };

      const client = async (n: number) => {
        for (let i = 0; running; i++) {
          const key = `replicas-${SEED}-${n}-${i}`;
          try {
            const placed = await request(`place ${key}`, 'POST', '/v1/orders', {
              auth: liveKey,
              idempotencyKey: key,
              body: JSON.stringify(orderBody({ reference: key })),
            });
            if (placed.status !== 201 && placed.status !== 200)
              throw new Error(`place ${key}: unexpected ${placed.status} ${JSON.stringify(placed.body)}`);
            if (placed.status === 200) stats.replayed200++;
            const id = placed.body.data!.id!;
            acks.push({ key, id, status: placed.status, at: Date.now() });
            for (const step of STEPS) {
              await pause(between(THINK_MS));
              await operate(id, step);
            }
            completed.push(id);
          } catch (err) {
            clientErrors.push(`client ${n}: ${(err as Error).message}`);
            return;
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));

      // ---- phase 1, the control: no kills ----------------------------------------------------
      const controlReached = await waitUntil(
        () => completed.length >= CONTROL_ORDERS || clientErrors.length === CLIENTS,
        300_000,
      );
      expect(clientErrors, 'client errors in the control phase').toEqual([]);
      expect(controlReached, `${CONTROL_ORDERS} orders completed without kills`).toBe(true);
      const controlOrders = completed.slice(0, CONTROL_ORDERS);
      const controlExpected = webhooksImpliedBy(LIFE);
      const controlDelivered = await waitUntil(() => controlOrders.every((id) => hasAll(id, controlExpected)), 120_000);
      const controlEndedAt = Date.now();

      // ---- phase 2: kill -9 a random replica, restart it on the same DATA_DIR ------------------
      const restarts: Array<Promise<void>> = [];
      const restartErrors: string[] = [];
      for (let k = 0; k < KILLS; k++) {
        await pause(between(KILL_GAP_MS));
        if (!(await waitUntil(() => pool.up().length >= 2, START_TIMEOUT_MS))) {
          restartErrors.push(`kill ${k + 1}: fewer than two replicas up for ${START_TIMEOUT_MS} ms`);
          break;
        }
        const up = pool.up();
        const victim = up[Math.floor(random() * up.length)]!;
        await pool.kill(victim.index);
        // Restarted at once on the same DATA_DIR; the next kill does not wait for it to listen.
        restarts.push(
          pool
            .start(victim.index)
            .catch(
              (err: unknown) =>
                void restartErrors.push(`restart of replica ${victim.index}: ${(err as Error).message}`),
            ),
        );
      }
      await Promise.all(restarts);
      const killsEndedAt = Date.now();
      running = false;
      await Promise.all(clients);
      const clientsStoppedAt = Date.now();

      // ---- every acknowledged order exists, once ---------------------------------------------
      const idByKey = new Map<string, string>();
      const keysMappedTwice: string[] = [];
      for (const ack of acks) {
        const known = idByKey.get(ack.key);
        if (known && known !== ack.id) keysMappedTwice.push(`${ack.key}: ${known} and ${ack.id}`);
        idByKey.set(ack.key, ack.id);
      }
      const orderIds = [...new Set(acks.map((a) => a.id))];
      /** GET /v1/orders, every page: reference -> ids, and how many orders. */
      const listOrders = async () => {
        const byReference = new Map<string, string[]>();
        let count = 0;
        for (let cursor = ''; ;) {
          const page = await request(
            'list orders',
            'GET',
            `/v1/orders?limit=100${cursor ? `&starting_after=${cursor}` : ''}`,
            { auth: liveKey },
          );
          expect(page.status, JSON.stringify(page.body)).toBe(200);
          for (const o of page.body.data as unknown as Array<{ id: string; reference: string }>) {
            count++;
            byReference.set(o.reference, [...(byReference.get(o.reference) ?? []), o.id]);
          }
          const pagination = page.body.pagination as { has_more: boolean; next_starting_after: string | null };
          if (!pagination.has_more || !pagination.next_starting_after) break;
          cursor = pagination.next_starting_after;
        }
        return { byReference, count };
      };
      // Right after the clients stopped (reported only: the list is a read model, read-your-writes
      // waits at most 2 s for it); asserted after the drain below.
      const listedAtStop = await listOrders();

      // ---- what every order's history implies -----------------------------------------------
      const expected = new Map<string, ExpectedWebhook[]>();
      const finalStatus = new Map<string, string>();
      const orderReadProblems: string[] = [];
      for (const [key, id] of idByKey) {
        const got = await request(`read ${id}`, 'GET', `/v1/orders/${id}`, { auth: liveKey });
        const status = String(got.body.data?.status);
        if (got.status !== 200 || got.body.data?.reference !== key || rank(status) < 0) {
          orderReadProblems.push(`${id} (${key}): ${got.status} ${JSON.stringify(got.body).slice(0, 300)}`);
          continue;
        }
        finalStatus.set(id, status);
        expected.set(id, webhooksImpliedBy(lifeUpTo(status)));
      }
      // The stored histories themselves (the CLI, straight from the log) for a sample of orders, and
      // for every order a client left before the end of its life: they must imply the same webhooks.
      const unfinished = orderIds.filter((id) => finalStatus.get(id) !== 'refunded');
      const shuffled = orderIds
        .map((id) => ({ id, r: random() }))
        .sort((a, b) => a.r - b.r)
        .map((x) => x.id);
      const sample = [
        ...new Set([...unfinished.slice(0, HISTORY_SAMPLE), controlOrders[0]!, ...shuffled.slice(0, HISTORY_SAMPLE)]),
      ].slice(0, HISTORY_SAMPLE + 1);
      const historyProblems: string[] = [];
      // Read while the survivors deliver (two CLI processes at a time).
      const histories = (async () => {
        const queue = [...sample];
        const worker = async () => {
          for (let id = queue.shift(); id; id = queue.shift()) {
            const h = await runCliAsync(dataDir!, ['orders', 'history', id, '--json'], env);
            if (h.code !== 0) {
              historyProblems.push(`orders history ${id}: exit ${h.code} ${h.stderr.slice(0, 300)}`);
              continue;
            }
            const fromLog = webhooksImpliedBy((JSON.parse(h.stdout) as { events: HistoryStep[] }).events);
            if (JSON.stringify(fromLog) !== JSON.stringify(expected.get(id))) {
              historyProblems.push(
                `${id}: the log implies ${fromLog.map(webhookKey).join(', ')}; the API state ${(expected.get(id) ?? []).map(webhookKey).join(', ')}`,
              );
            }
          }
        };
        await Promise.all([worker(), worker()]);
      })();
      const expectedCount = [...expected.values()].reduce((n, list) => n + list.length, 0);

      // ---- let the survivors deliver everything ----------------------------------------------
      const drained = await waitUntil(() => [...expected].every(([id, list]) => hasAll(id, list)), DRAIN_MS);
      const drainedAt = Date.now();
      await histories;

      const audit = await runCliAsync(dataDir, ['audit', 'verify', '--wait', '60'], env, 240_000);
      const streams = await runCliAsync(
        dataDir,
        ['streams', 'list', '--prefix', 'order-', '--limit', '1000000', '--json'],
        env,
      );
      const orderStreams = streams.code === 0 ? (JSON.parse(streams.stdout) as unknown[]).length : -1;
      const listed = await listOrders();
      const referencesTwice = [...listed.byReference]
        .filter(([, ids]) => ids.length !== 1)
        .map(([ref, ids]) => `${ref}: ${ids.join(', ')}`);
      const ackedNotListed = [...idByKey]
        .filter(([key, id]) => listed.byReference.get(key)?.[0] !== id)
        .map(([key, id]) => `${key} -> ${id}`);
      const missingAtStop = [...idByKey].filter(([key, id]) => listedAtStop.byReference.get(key)?.[0] !== id).length;
      const exitCodes = await pool.stopAll();
      const stoppedAt = Date.now();

      // ---- the webhooks as received ------------------------------------------------------------
      const receipts = recorder.receipts;
      const signatureProblems: string[] = [];
      const byEvent = new Map<string, Receipt[]>();
      for (const r of receipts) {
        const e = r.event;
        const problem = !e?.id
          ? 'body is not an event'
          : (verifyDocumented(r.raw, r.headers['service-signature'], secret, Math.floor(r.at / 1000)) ??
            (r.headers['service-event-id'] !== e.id || r.headers['service-event-type'] !== e.type
              ? 'Service-Event-Id/-Type headers differ from the body'
              : null) ??
            (e.environment !== 'live' ? `environment ${e.environment}` : null));
        if (problem) signatureProblems.push(`receipt ${r.n} (${e?.id ?? '?'}): ${problem}`);
        if (e?.id) byEvent.set(e.id, [...(byEvent.get(e.id) ?? []), r]);
      }

      // Per order: first receipts in arrival order against the history's sequence.
      const firstByOrder = new Map<string, Array<{ e: RecordedEvent; r: Receipt }>>();
      for (const [, list] of byEvent) {
        const first = list[0]!;
        const order = first.event!.data.order;
        if (!order) continue;
        firstByOrder.set(order.id, [...(firstByOrder.get(order.id) ?? []), { e: first.event!, r: first }]);
      }
      const missing: string[] = [];
      const outOfOrder: string[] = [];
      const unexpectedEvents: string[] = [];
      for (const [id, list] of expected) {
        const got = (firstByOrder.get(id) ?? []).sort((a, b) => a.r.n - b.r.n);
        const gotKeys = got.map((g) =>
          webhookKey({ type: g.e.type, status: g.e.data.order!.status, payment: g.e.data.order!.payment.status }),
        );
        const wantKeys = list.map(webhookKey);
        const absent = wantKeys.filter((k) => !gotKeys.includes(k));
        if (absent.length) missing.push(`${id}: ${absent.join(', ')}`);
        const extra = gotKeys.filter((k, i) => !wantKeys.includes(k) || gotKeys.indexOf(k) !== i);
        if (extra.length) unexpectedEvents.push(`${id}: ${extra.join(', ')}`);
        const arrived = gotKeys.filter((k) => wantKeys.includes(k));
        const inLogOrder = wantKeys.filter((k) => arrived.includes(k));
        if (JSON.stringify(arrived) !== JSON.stringify(inLogOrder)) {
          const times = got.map((g) => `${g.e.type.replace('order.', '')}(${g.e.data.order!.status}) ${at(g.r.at)}`);
          outOfOrder.push(`${id}: first receipts ${times.join(' > ')}`);
        }
        for (const g of got) {
          const want = list.find(
            (w) =>
              webhookKey(w) ===
              webhookKey({ type: g.e.type, status: g.e.data.order!.status, payment: g.e.data.order!.payment.status }),
          );
          if (want?.previous_status !== undefined && g.e.data.previous_status !== want.previous_status) {
            unexpectedEvents.push(
              `${id}: ${g.e.type} to ${want.status} with previous_status ${g.e.data.previous_status}, expected ${want.previous_status}`,
            );
          }
        }
      }
      for (const id of firstByOrder.keys())
        if (!expected.has(id)) unexpectedEvents.push(`${id}: webhooks for an order no client acknowledged`);

      // Duplicates: each later receipt of an event must follow a kill that came after an earlier
      // receipt's attempt started and before that attempt had to be recorded.
      const kills = pool.kills;
      const firstKillAt = kills[0]?.at ?? Infinity;
      let duplicateReceipts = 0;
      let duplicatedEvents = 0;
      let controlDuplicates = 0;
      const unexplained: string[] = [];
      const duplicates: string[] = [];
      for (const [eventId, list] of byEvent) {
        if (list.length < 2) continue;
        duplicatedEvents++;
        for (let j = 1; j < list.length; j++) {
          duplicateReceipts++;
          const later = list[j]!;
          if (later.at < firstKillAt) controlDuplicates++;
          const explainedBy = kills.find((k) =>
            list
              .slice(0, j)
              .some(
                (earlier) =>
                  k.at >= earlier.at - KILL_BEFORE_RECEIPT_SLACK_MS &&
                  k.at <= earlier.at + ATTEMPT_TIMEOUT_MS + KILL_BEFORE_RECEIPT_SLACK_MS &&
                  k.at <= later.at,
              ),
          );
          const text = `${eventId} (${list[0]!.event!.type}) receipt ${j + 1} of ${list.length}, at ${list.map((r) => at(r.at)).join(', ')}`;
          duplicates.push(
            `${text}; ${explainedBy ? `kill of replica ${explainedBy.replica} at ${at(explainedBy.at)}` : 'NO KILL EXPLAINS IT'}`,
          );
          if (!explainedBy) unexplained.push(text);
        }
      }

      const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
      const summary = [
        `several replicas: ${REPLICAS} processes, ${CLIENTS} clients, seed ${SEED}`,
        `  duration: ${seconds(stoppedAt - started)} (start ${seconds(startedAt - started)}, control ${seconds(controlEndedAt - startedAt)}, kills ${seconds(killsEndedAt - controlEndedAt)}, clients stop ${seconds(clientsStoppedAt - killsEndedAt)}, drain ${seconds(drainedAt - clientsStoppedAt)}${drained ? '' : ' (bound reached)'})`,
        `  kills: ${kills.length} (per replica ${pool.slots.map((s) => kills.filter((k) => k.replica === s.index).length).join('/')}), starts ${pool.slots.map((s) => s.starts).join('/')} (until listening: ${seconds(Math.min(...pool.startMs))} to ${seconds(Math.max(...pool.startMs))})`,
        `  orders: ${acks.length} acknowledged (${acks.filter((a) => a.status === 201).length} with 201, ${stats.replayed200} replayed 200), ${orderIds.length} distinct, ${listed.count} listed (${missingAtStop} not yet listed right after the clients stopped), ${orderStreams} order- streams, ${completed.length} completed; control ${controlOrders.length} (all delivered before the first kill: ${controlDelivered})`,
        `  requests: ${stats.requests} (${stats.connectionErrors} connection errors/timeouts, ${stats.serverErrors} 5xx, ${stats.alreadyApplied} steps found already applied)`,
        `  webhooks: ${expectedCount} expected, ${receipts.length} deliveries, ${byEvent.size} distinct events; duplicates: ${duplicateReceipts} extra receipts of ${duplicatedEvents} events, ${controlDuplicates} before the first kill, ${unexplained.length} not explained by a kill`,
        `  problems: ${missing.length} orders missing events, ${outOfOrder.length} out of order, ${unexpectedEvents.length} unexpected, ${signatureProblems.length} bad signatures, ${historyProblems.length} history mismatches (${sample.length} histories read), audit exit ${audit.code}, exit codes ${exitCodes.join('/')}`,
        `  service: ${pool.errorLines.length} error log lines, ${pool.unexpectedExits.length} unexpected exits`,
      ];
      console.log(summary.join('\n'));
      const errorKinds = new Map<string, string[]>();
      for (const line of pool.errorLines) {
        const kind = line.replace(/^replica \d+ [^:]*: /, '').slice(0, 240);
        errorKinds.set(kind, [...(errorKinds.get(kind) ?? []), line.replace(/: .*$/s, '')]);
      }
      if (errorKinds.size) {
        console.log(
          `service error lines (distinct, first 15):\n  ${[...errorKinds]
            .slice(0, 15)
            .map(
              ([kind, where]) =>
                `${where.length}x ${kind} [${where.slice(0, 6).join(', ')}${where.length > 6 ? ', ...' : ''}]`,
            )
            .join('\n  ')}`,
        );
      }
      if (stats.serverErrorSamples.length)
        console.log(`5xx answers (first 10):\n  ${stats.serverErrorSamples.join('\n  ')}`);
      if (duplicates.length) console.log(`duplicates (first 15):\n  ${duplicates.slice(0, 15).join('\n  ')}`);
      if (outOfOrder.length) console.log(`out of order (first 5):\n  ${outOfOrder.slice(0, 5).join('\n  ')}`);
      console.log(`kills at: ${kills.map((k) => `${at(k.at)} r${k.replica}`).join(', ')}`);

      expect.soft(clientErrors, 'client errors').toEqual([]);
      expect.soft(pool.unexpectedExits, 'replicas that exited by themselves').toEqual([]);
      expect.soft(restartErrors, 'restarts on the same DATA_DIR').toEqual([]);
      expect.soft(kills.length, 'kills').toBeGreaterThanOrEqual(Math.min(KILLS, 10));
      expect.soft(keysMappedTwice, 'idempotency keys acknowledged with two orders').toEqual([]);
      expect.soft(referencesTwice, 'references (= keys) listed with other than one order').toEqual([]);
      expect.soft(ackedNotListed, 'acknowledged orders missing from the list').toEqual([]);
      expect.soft(listed.count, 'orders listed').toBe(orderIds.length);
      expect.soft(orderStreams, `order- streams (${streams.stderr.slice(0, 300)})`).toBe(orderIds.length);
      expect.soft(orderReadProblems, 'acknowledged orders that cannot be read').toEqual([]);
      expect.soft(historyProblems, 'stored histories that imply other webhooks').toEqual([]);
      expect.soft(missing.slice(0, 20), `orders missing webhooks (${missing.length})`).toEqual([]);
      expect
        .soft(outOfOrder.slice(0, 20), `orders whose webhooks arrived out of order (${outOfOrder.length})`)
        .toEqual([]);
      expect.soft(unexpectedEvents.slice(0, 20), `unexpected webhooks (${unexpectedEvents.length})`).toEqual([]);
      expect
        .soft(
          signatureProblems.slice(0, 20),
          `receipts failing the documented verification (${signatureProblems.length})`,
        )
        .toEqual([]);
      expect.soft(controlDuplicates, 'duplicate receipts before the first kill (control phase)').toBe(0);
      expect.soft(unexplained.slice(0, 20), `duplicates no kill explains (${unexplained.length})`).toEqual([]);
      expect.soft(audit.code, `audit verify: ${audit.stdout.slice(-1500)}${audit.stderr.slice(-500)}`).toBe(0);
      expect.soft(exitCodes, 'exit codes after SIGTERM').toEqual(pool.slots.map(() => 0));
    }, 1_200_000);
  },
);

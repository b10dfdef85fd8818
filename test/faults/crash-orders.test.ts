import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { ensureBuilt, runCli, startChildService, type ChildService } from '../support/child-service.js';
import { tempDataDir } from '../support/service.js';
import { orderBody } from '../support/orders.js';
import { startReceiver, type Receiver } from '../http/webhooks-fixture.js';
import { verifySignature } from '../../src/webhooks/signing.js';

/**
 * kill -9 the service at random moments while clients place orders and retry exactly as the spec
 * tells them (same Idempotency-Key on network errors and 5xx). Afterwards every order a client saw
 * acknowledged must exist exactly once.
 */
const CYCLES = Number(process.env.FAULT_CYCLES ?? 30);
const CLIENTS = 4;
const SEED = Number(process.env.FAULT_SEED ?? 20261121);

function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ADMIN_TOKEN = 'crash-test-admin-token-0123456789';
const ENV = { SQLITE_SYNCHRONOUS: 'FULL', WEBHOOKS_ALLOW_PRIVATE_URLS: 'true', ADMIN_TOKEN };
let dataDir: string;
let service: ChildService;
let sandboxKey: string;
let receiver: Receiver;

beforeAll(() => {
  ensureBuilt();
  dataDir = tempDataDir();
  const created = runCli(dataDir, ['partners', 'create', '--name', 'Crash Test', '--rate-limit', '1000000', '--json']);
  sandboxKey = JSON.parse(created.stdout).sandbox_key;
});
afterAll(async () => {
  service?.child.kill('SIGKILL');
  await receiver?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Ack {
  key: string;
  id: string;
}

describe(`crash safety: ${CYCLES} kill -9 cycles`, () => {
  it('when the service is killed at random moments, then every acknowledged order exists exactly once and keys never map to two orders', async () => {
    const random = prng(SEED);
    service = await startChildService(dataDir, ENV);
    receiver = await startReceiver();
    const registered = await fetch(`${service.url}/v1/webhooks/endpoint`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${sandboxKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(registered.status).toBe(201);
    const secret = ((await registered.json()) as { data: { secret: string } }).data.secret;
    let running = true;
    let restarting: Promise<void> = Promise.resolve();
    const acks: Ack[] = [];
    let attempts = 0;

    const client = async (n: number) => {
      let i = 0;
      while (running) {
        const key = `crash-${n}-${i++}-${SEED}`;
        const body = JSON.stringify(orderBody({ reference: key }));
        for (;;) {
          await restarting;
          attempts++;
          try {
            const res = await fetch(`${service.url}/v1/orders`, {
              method: 'POST',
              headers: {
                Authorization: `Bearer ${sandboxKey}`,
                'Content-Type': 'application/json',
                'Idempotency-Key': key,
              },
              body,
              signal: AbortSignal.timeout(5000),
            });
            if (res.status === 201 || res.status === 200) {
              const id = ((await res.json()) as { data: { id: string } }).data.id;
              acks.push({ key, id });
              // One step further, so orders have several events whose order the webhooks must keep.
              // Not retried: a lost answer to a non-idempotent advance leaves it unknown, as for any client.
              await fetch(`${service.url}/v1/sandbox/orders/${id}/advance`, {
                method: 'POST',
                headers: { Authorization: `Bearer ${sandboxKey}`, 'Content-Type': 'application/json' },
                body: '{}',
                signal: AbortSignal.timeout(5000),
              }).catch(() => undefined);
              break;
            }
            if (res.status < 500 && res.status !== 429)
              throw new Error(`unexpected ${res.status}: ${await res.text()}`);
          } catch (err) {
            if (err instanceof Error && err.message.startsWith('unexpected')) throw err;
            // Network error while the service is down: retry with the same key, as clients are told to.
          }
          await new Promise((r) => setTimeout(r, 5 + random() * 20));
        }
      }
    };

    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      await new Promise((r) => setTimeout(r, 300 + random() * 900));
      let done!: () => void;
      restarting = new Promise((r) => (done = r));
      service.child.kill('SIGKILL');
      await service.exited;
      service = await startChildService(dataDir, ENV);
      done();
    }
    running = false;
    await Promise.all(clients);

    expect(acks.length).toBeGreaterThan(CYCLES);
    // Every acknowledged order exists, exactly once, with the reference its key carried.
    const ids = new Set<string>();
    for (const ack of acks) {
      expect(ids.has(ack.id), `order ${ack.id} acknowledged for two keys`).toBe(false);
      ids.add(ack.id);
      const got = await fetch(`${service.url}/v1/orders/${ack.id}`, {
        headers: { Authorization: `Bearer ${sandboxKey}` },
      });
      expect(got.status).toBe(200);
      expect(((await got.json()) as { data: { reference: string } }).data.reference).toBe(ack.key);
    }
    // The list agrees: one order per reference, never two.
    const seenRefs = new Map<string, number>();
    let cursor = '';
    for (;;) {
      const page = (await (
        await fetch(`${service.url}/v1/orders?limit=100${cursor ? `&starting_after=${cursor}` : ''}`, {
          headers: { Authorization: `Bearer ${sandboxKey}` },
        })
      ).json()) as {
        data: Array<{ id: string; reference: string }>;
        pagination: { has_more: boolean; next_starting_after: string };
      };
      for (const o of page.data) seenRefs.set(o.reference, (seenRefs.get(o.reference) ?? 0) + 1);
      if (!page.pagination.has_more) break;
      cursor = page.pagination.next_starting_after;
    }
    for (const [ref, count] of seenRefs) expect(count, `reference ${ref}`).toBe(1);
    for (const ack of acks) expect(seenRefs.get(ack.key)).toBe(1);

    // Every order's events reach the receiver at least once, in the order they happened, signed.
    const deadline = Date.now() + 120_000;
    const created = new Set<string>();
    let parsed = 0;
    const missing = () => {
      for (; parsed < receiver.received.length; parsed++) {
        const e = receiver.received[parsed]!.event as { type: string; data: { order?: { reference: string | null } } };
        if (e.type === 'order.created') created.add(e.data.order!.reference!);
      }
      return [...seenRefs.keys()].filter((ref) => !created.has(ref));
    };
    while (Date.now() < deadline && missing().length > 0) {
      await receiver.waitFor(receiver.received.length + 1, 1000).catch(() => undefined);
    }
    expect(missing()).toEqual([]);
    const firstArrivals = new Map<string, Array<{ type: string; updated_at: string }>>();
    const seenEvents = new Set<string>();
    for (const r of receiver.received) {
      const e = JSON.parse(r.body) as { id: string; type: string; data: { order: { id: string; updated_at: string } } };
      if (seenEvents.has(e.id)) continue;
      seenEvents.add(e.id);
      const list = firstArrivals.get(e.data.order.id) ?? [];
      list.push({ type: e.type, updated_at: e.data.order.updated_at });
      firstArrivals.set(e.data.order.id, list);
    }
    for (const [orderId, events] of firstArrivals) {
      expect(events[0]!.type, `first event of ${orderId}`).toBe('order.created');
      const times = events.map((e) => e.updated_at);
      expect(times, `events of ${orderId} in order`).toEqual([...times].sort());
    }
    for (const r of receiver.received) {
      // Checked as the receiver would have, at its arrival (the run is longer than the 5-minute tolerance).
      const arrived = new Date(performance.timeOrigin + r.arrivedAt);
      expect(
        verifySignature({ header: String(r.headers['service-signature']), body: r.body, secret, now: arrived }),
      ).toEqual({ ok: true, timestamp: expect.any(Number) });
    }

    // The read models the service serves equal a fresh replay of the log.
    const audit = runCli(dataDir, ['audit', 'verify', '--url', service.url], { ADMIN_TOKEN });
    expect(audit.stdout + audit.stderr).toContain('audit verify');
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    console.log(
      `crash test: ${CYCLES} kills, ${acks.length} acknowledged orders, ${seenRefs.size} orders stored, ${attempts} attempts`,
    );
  }, 600_000);
});

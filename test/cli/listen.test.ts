import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/webhooks/signing.js';
import {
  CLI,
  ensureBuilt,
  runCli,
  startChildService,
  type ChildService,
  stopChildService,
} from '../support/child-service.js';
import { runCliAsync } from '../support/cli-async.js';
import { newKey, orderBody } from '../support/orders.js';
import { tempDataDir } from '../support/service.js';
import { PROCESS_TEST_TIMEOUT_MS, waitFor } from '../support/wait.js';
import { startReceiver, type Receiver } from '../http/webhooks-fixture.js';

// `listen` end to end: the built CLI against a service process, forwarding to a local receiver
// that checks each signature with the secret the CLI printed. No endpoint is registered.

let dataDir: string;
let service: ChildService;
let receiver: Receiver;
let keys: { sandbox_key: string; live_key: string };
let readOnly: string;
beforeAll(async () => {
  ensureBuilt();
  dataDir = tempDataDir();
  keys = JSON.parse(runCli(dataDir, ['partners', 'create', '--name', 'Listener', '--json']).stdout) as typeof keys;
  readOnly = (
    JSON.parse(
      runCli(dataDir, ['partners', 'create', '--name', 'No events', '--scopes', 'orders:read', '--json']).stdout,
    ) as typeof keys
  ).sandbox_key;
  service = await startChildService(dataDir, { SQLITE_SYNCHRONOUS: 'NORMAL' });
  receiver = await startReceiver('/hook');
}, PROCESS_TEST_TIMEOUT_MS);
afterAll(async () => {
  await receiver?.close();
  await stopChildService(service);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${keys.sandbox_key}`,
      'Content-Type': 'application/json',
      ...(method === 'POST' && path === '/v1/orders' ? { 'Idempotency-Key': newKey() } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> & { id: string } } };
};

function startListen(args: string[]): { child: ChildProcess; stdout: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, 'listen', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, exited };
}

describe('listen', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('when events happen after it started, then it prints each and forwards it signed with the secret it printed; SIGINT stops it cleanly', async () => {
    const before = await api('POST', '/v1/orders', orderBody());
    expect(before.status).toBe(201);
    const listen = startListen([
      '--key',
      keys.sandbox_key,
      '--base-url',
      service.url,
      '--forward-to',
      receiver.url,
      '--poll-interval',
      '200',
    ]);
    const secret = await waitFor(() => /signing secret is (whsec_[0-9A-Za-z]+)/.exec(listen.stdout())?.[1], {
      what: `the secret line in: ${listen.stdout()}`,
    });

    const placed = await api('POST', '/v1/orders', orderBody());
    expect(placed.status).toBe(201);
    const id = placed.body.data.id;
    for (let i = 0; i < 2; i++) expect((await api('POST', `/v1/sandbox/orders/${id}/advance`, {})).status).toBe(200);
    const got = await receiver.waitFor(3, 60_000);
    expect(got.map((r) => [r.event.type, r.event.data.order?.id, r.event.data.order?.status])).toEqual([
      ['order.created', id, 'placed'],
      ['order.status_changed', id, 'confirmed'],
      ['order.status_changed', id, 'preparing'],
    ]);
    const listed = (await api('GET', `/v1/events?order_id=${id}`)).body.data as unknown as Array<
      Record<string, unknown>
    >;
    for (const r of got) {
      const header = r.headers['service-signature'] as string;
      expect(verifySignature({ header, body: r.body, secret, now: new Date() }).ok).toBe(true);
      expect(Stripe.webhooks.signature!.verifyHeader(r.body, header, secret, 300)).toBe(true);
      expect(r.headers['service-event-id']).toBe(r.event.id);
      expect(r.headers['user-agent']).toMatch(/^partner-ordering-cli\/\d+\.\d+\.\d+ \(listen\)$/);
      const { delivery: _d, ...same } = listed.find((e) => e.id === r.event.id)!;
      expect(JSON.parse(r.body)).toEqual(same);
    }
    expect(got.some((r) => r.event.data.order?.id === before.body.data.id)).toBe(false);
    for (const r of got) expect(listen.stdout()).toContain(`--> ${r.event.type} [${r.event.id}]`);
    await waitFor(
      () =>
        listen
          .stdout()
          .split('\n')
          .filter((l) => l.startsWith('<-- [200] POST')).length === 3,
    );

    listen.child.kill('SIGINT');
    expect(await listen.exited).toBe(0);
    expect(listen.stdout()).toContain('Stopped listening.');
  });

  it('when --events names some types, then only those are forwarded, to the URL exactly as given', async () => {
    // The secret the README's walkthrough forwards with: it must be one listen takes.
    const README_SECRET = /--secret (whsec_\S+)/.exec(fs.readFileSync('README.md', 'utf8'))![1]!;
    const start = receiver.received.length;
    const paths: Array<string | undefined> = [];
    receiver.reply = (_n, req) => (paths.push(req.url), { status: 200 });
    const listen = startListen([
      '--key',
      keys.sandbox_key,
      '--base-url',
      service.url,
      '--forward-to',
      `${receiver.url}/`,
      '--events',
      'order.created',
      '--secret',
      README_SECRET,
      '--poll-interval',
      '200',
    ]);
    await waitFor(() => listen.stdout().includes(README_SECRET));
    const placed = await api('POST', '/v1/orders', orderBody());
    expect((await api('POST', `/v1/sandbox/orders/${placed.body.data.id}/advance`, {})).status).toBe(200);
    const [r] = (await receiver.waitFor(start + 1, 60_000)).slice(start);
    expect(r!.event).toMatchObject({ type: 'order.created', data: { order: { id: placed.body.data.id } } });
    const header = r!.headers['service-signature'] as string;
    expect(verifySignature({ header, body: r!.body, secret: README_SECRET, now: new Date() }).ok).toBe(true);
    // The status change after it is listed by the API but not forwarded: the next order's creation,
    // listed after it, arrives with nothing in between.
    await waitFor(async () => {
      const events = (await api('GET', `/v1/events?order_id=${placed.body.data.id}`)).body.data as unknown as unknown[];
      return events.length === 2;
    });
    const next = await api('POST', '/v1/orders', orderBody());
    const [, r2] = (await receiver.waitFor(start + 2, 60_000)).slice(start);
    expect(r2!.event).toMatchObject({ type: 'order.created', data: { order: { id: next.body.data.id } } });
    listen.child.kill('SIGINT');
    expect(await listen.exited).toBe(0);
    expect(receiver.received.slice(start).map((x) => x.event.type)).toEqual(['order.created', 'order.created']);
    expect(paths).toEqual(['/hook/', '/hook/']);
  });

  it('when given a live key, an unknown event type or a key without webhooks:read, then it refuses with one clear line', async () => {
    const live = await runCliAsync(dataDir, ['listen', '--key', keys.live_key, '--base-url', service.url]);
    expect(live.code).toBe(1);
    expect(live.stderr).toContain('listen takes sandbox keys only (svc_test_…)');
    const types = await runCliAsync(dataDir, [
      'listen',
      '--key',
      keys.sandbox_key,
      '--base-url',
      service.url,
      '--events',
      'order.shipped',
    ]);
    expect(types.code).toBe(1);
    expect(types.stderr).toContain('--events: unknown event type order.shipped');
    const scope = await runCliAsync(dataDir, ['listen', '--key', readOnly, '--base-url', service.url]);
    expect(scope.code).toBe(1);
    expect(scope.stderr).toContain('insufficient_scope');
    // Refused before it announces itself: no "Ready!", no signing secret.
    expect(scope.stdout).toBe('');
  });
});

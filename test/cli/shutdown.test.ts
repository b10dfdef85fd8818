import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_BOUND_MS } from '../../src/composition/shutdown.js';
import { ensureBuilt, runCli, startChildService, type ChildService } from '../support/child-service.js';
import { newKey, orderBody } from '../support/orders.js';
import { tempDataDir } from '../support/service.js';

// SIGTERM has a hard deadline: the grace period for in-flight requests plus a bound on closing the
// rest. A step that still runs then cannot keep the process alive, and a second signal ends it at
// once. The stuck step here is real: a client of the metrics port that never finishes its request
// holds that server's close (Node waits for a request in progress) long past both.

const GRACE_MS = 300;
let dataDir: string;
let service: ChildService | undefined;
let stuck: net.Socket | undefined;

beforeAll(() => ensureBuilt());
afterEach(async () => {
  stuck?.destroy();
  if (service && service.child.exitCode === null && service.child.signalCode === null) {
    service.child.kill('SIGKILL');
    await service.exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A service whose metrics port has a request that never ends (its headers are never finished). */
async function startWithStuckScrape(): Promise<ChildService> {
  dataDir = tempDataDir();
  service = await startChildService(dataDir, { METRICS_PORT: '0', SHUTDOWN_GRACE_MS: String(GRACE_MS) });
  const port = Number(/metrics on http:\/\/localhost:(\d+)/.exec(service.output())![1]);
  stuck = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => stuck!.once('connect', resolve).once('error', reject));
  stuck.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  return service;
}

async function waitForOutput(s: ChildService, pattern: RegExp, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(s.output())) {
    if (Date.now() > deadline) throw new Error(`no ${pattern} in the output:\n${s.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every line the process wrote is a JSON log line (no plain text on stdout or stderr). */
function expectJsonLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      expect(() => JSON.parse(l), l).not.toThrow();
      return JSON.parse(l) as Record<string, unknown>;
    });
}

describe('shutdown deadline (real process)', () => {
  it('when a step is still running after the grace period and the close bound, then the process exits 1 then', async () => {
    const s = await startWithStuckScrape();
    const started = Date.now();
    s.child.kill('SIGTERM');
    const code = await s.exited;
    const took = Date.now() - started;
    expect(code).toBe(1);
    expect(took).toBeGreaterThanOrEqual(GRACE_MS + CLOSE_BOUND_MS - 200);
    expect(took).toBeLessThan(GRACE_MS + CLOSE_BOUND_MS + 10_000);
    const lines = expectJsonLines(s.output());
    expect(lines.find((l) => l.msg === 'shutdown did not finish in time: exiting')).toMatchObject({
      level: 50,
      signal: 'SIGTERM',
    });
    expect(lines.some((l) => l.msg === 'stopped cleanly')).toBe(false);
  }, 60_000);

  it('when a second SIGTERM arrives while shutting down, then the process exits 1 at once', async () => {
    const s = await startWithStuckScrape();
    s.child.kill('SIGTERM');
    await waitForOutput(s, /draining in-flight requests/);
    const started = Date.now();
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    const lines = expectJsonLines(s.output());
    expect(lines.find((l) => l.msg === 'second signal while shutting down: exiting at once')).toMatchObject({
      level: 50,
      signal: 'SIGTERM',
    });
  }, 60_000);

  it('when clients keep sending on kept-alive connections, then each is answered once more at most, closing its connection, none is cut, and the drain ends without waiting out the grace', async () => {
    dataDir = tempDataDir();
    const created = runCli(dataDir, ['partners', 'create', '--name', 'Drain', '--rate-limit', '100000', '--json']);
    const key = (JSON.parse(created.stdout) as { sandbox_key: string }).sandbox_key;
    const graceMs = 120_000;
    service = await startChildService(dataDir, { SHUTDOWN_GRACE_MS: String(graceMs) });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const answers: Array<{ sentAt: number; status: number | undefined; connection: string | undefined }> = [];
    const body = JSON.stringify(orderBody());
    // An order takes its commit's time, so the connections are seldom idle: a client sends its next
    // request on one as soon as the last is answered.
    const place = () =>
      new Promise<void>((resolve, reject) => {
        const sentAt = Date.now();
        http
          .request(
            `${service!.url}/v1/orders`,
            {
              method: 'POST',
              agent,
              headers: {
                Authorization: `Bearer ${key}`,
                'Content-Type': 'application/json',
                'Idempotency-Key': newKey(),
              },
            },
            (res) => {
              res.resume();
              res.on('end', () => {
                answers.push({ sentAt, status: res.statusCode, connection: res.headers.connection });
                resolve();
              });
            },
          )
          .on('error', reject)
          .end(body);
      });
    const clients = Promise.allSettled(
      Array.from({ length: 8 }, async () => {
        for (;;) await place();
      }),
    );
    while (answers.length < 100) await new Promise((r) => setTimeout(r, 20));
    const signalled = Date.now();
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(graceMs / 2);
    // Each client ended on a refused connection, never on one closed under a request it had sent.
    const ends = await clients;
    expect(ends.map((c) => (c.status === 'rejected' ? (c.reason as { code?: string }).code : 'no end'))).toEqual(
      ends.map(() => 'ECONNREFUSED'),
    );
    const draining = expectJsonLines(service.output()).find((l) => l.msg === 'draining in-flight requests');
    const drainedAt = draining!.time as number;
    // What was sent once the drain had begun was answered closing its connection (at most one per
    // connection), the client's next went elsewhere (here: refused).
    const after = answers.filter((a) => a.sentAt > drainedAt + 5);
    expect(after.filter((a) => a.connection !== 'close')).toEqual([]);
    expect(after.length).toBeLessThanOrEqual(8);
    expect(answers.filter((a) => a.status !== 201)).toEqual([]);
    agent.destroy();
  }, 120_000);

  it('when nothing is stuck, then SIGTERM still exits 0 well before the deadline', async () => {
    dataDir = tempDataDir();
    service = await startChildService(dataDir, { METRICS_PORT: '0', SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    const started = Date.now();
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(GRACE_MS + CLOSE_BOUND_MS);
    expect(expectJsonLines(service.output()).some((l) => l.msg === 'stopped cleanly')).toBe(true);
  }, 60_000);
});

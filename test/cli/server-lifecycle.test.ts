import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { tempDataDir } from '../support/service.js';
import { CLI, ensureBuilt, MAIN, startChildService } from '../support/child-service.js';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/wait.js';

let dataDir: string;

const start = (env: Record<string, string> = {}) => startChildService(dataDir, env);

const exited = (child: ChildProcess) => new Promise<number | null>((r) => child.on('exit', (code) => r(code)));

beforeAll(() => {
  ensureBuilt();
  dataDir = tempDataDir();
}, 120_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('server lifecycle', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('when configuration is invalid, then start-up stops with one line naming the variable', () => {
    const r = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, DATA_DIR: dataDir, EVENT_STORE: 'kafka' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^Invalid configuration: EVENT_STORE /);
    const missing = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, DATA_DIR: dataDir, READ_STORE: 'mongodb' },
      encoding: 'utf8',
    });
    expect(missing.stderr.trim()).toBe('Invalid configuration: MONGODB_URL is required when READ_STORE=mongodb');
  });

  it('when MongoDB cannot be reached, then the server and a CLI command stop with one line saying so, never quoting the URL', () => {
    const env = (url: string) => ({
      ...process.env,
      DATA_DIR: dataDir,
      READ_STORE: 'mongodb',
      MONGODB_URL: url,
      WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    });
    const down = env('mongodb://127.0.0.1:1/');
    const server = spawnSync(process.execPath, [MAIN], { env: down, encoding: 'utf8' });
    expect(server.status).toBe(1);
    expect(server.stderr.trim().split('\n')).toEqual([
      'Failed to start: MongoDB (MONGODB_URL) cannot be reached (MongoServerSelectionError, ECONNREFUSED). Start it, or correct MONGODB_URL.',
    ]);
    const cli = spawnSync(process.execPath, [CLI, 'partners', 'list'], { env: down, encoding: 'utf8' });
    expect(cli.status).toBe(1);
    expect(cli.stderr.trim().split('\n')).toEqual([
      'error: MongoDB (MONGODB_URL) cannot be reached (MongoServerSelectionError, ECONNREFUSED). Start it, or correct MONGODB_URL.',
    ]);
    // A URL the driver refuses to parse, with a password in it.
    const malformed = spawnSync(process.execPath, [CLI, 'partners', 'list'], {
      env: env('mongodb://admin:sekrit@127.0.0.1:99999/'),
      encoding: 'utf8',
    });
    expect(malformed.status).toBe(1);
    expect(malformed.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: MongoDB \(MONGODB_URL\) cannot be reached \(Mongo\w*Error\)/),
    ]);
    expect(malformed.stderr).not.toContain('sekrit');
  });

  it.each([
    ['PORT', ' ', 'must be a whole number written in digits'],
    ['PORT', '1e3', 'must be a whole number written in digits'],
    ['HTTP_MAX_CONNECTIONS', '0x10', 'must be a whole number written in digits'],
    // Node's timers hold at most about 24.8 days: a longer grace would end the drain at once.
    ['SHUTDOWN_GRACE_MS', '2147483000', 'Too big: expected number to be <=3600000'],
  ])('when %s is "%s", then start-up stops with one line naming it', (name, value, message) => {
    const r = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, DATA_DIR: dataDir, [name]: value },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`Invalid configuration: ${name} ${message} (got "${value}")\n`);
  });

  describe('when the process cannot listen', () => {
    let taken: net.Server;
    let takenPort: number;
    beforeAll(async () => {
      taken = net.createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      takenPort = (taken.address() as net.AddressInfo).port;
    });
    afterAll(() => new Promise((resolve) => taken.close(resolve)));

    const refused = (env: Record<string, string>) => {
      // Asynchronous: the port is held by this process, whose event loop must not be blocked.
      const child = spawn(process.execPath, [MAIN], {
        env: { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      return new Promise<{ code: number | null; stderr: string }>((resolve) =>
        child.on('exit', (code) => resolve({ code, stderr })),
      );
    };

    it('then a port in use stops start-up with one line naming PORT or METRICS_PORT, before anything opens', async () => {
      // A data directory not made yet: the stores (and the log's replay) would make it.
      const unopened = path.join(dataDir, 'not-opened');
      const port = await refused({ PORT: String(takenPort), DATA_DIR: unopened });
      expect(port.code).toBe(1);
      expect(port.stderr).toBe(
        `Failed to start: PORT=${takenPort} is in use on 127.0.0.1 by another process: choose another PORT, or stop it.\n`,
      );
      const metrics = await refused({ PORT: '0', METRICS_PORT: String(takenPort), DATA_DIR: unopened });
      expect(metrics.code).toBe(1);
      expect(metrics.stderr).toBe(
        `Failed to start: METRICS_PORT=${takenPort} is in use on 127.0.0.1 by another process: choose another METRICS_PORT, or stop it.\n`,
      );
      const host = await refused({ PORT: '0', HOST: '192.0.2.1', DATA_DIR: unopened });
      expect(host.code).toBe(1);
      expect(fs.existsSync(unopened)).toBe(false);
    });

    it('then a HOST that is not an address of this machine stops start-up with one line naming HOST', async () => {
      const r = await refused({ PORT: '0', HOST: '192.0.2.1' });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        'Failed to start: HOST=192.0.2.1 is not an address of this machine (EADDRNOTAVAIL): use 0.0.0.0, 127.0.0.1 or an address of one of its interfaces.\n',
      );
    });
  });

  it('when SIGTERM arrives during a request, then the request completes, the process exits 0, and a restart sees the data', async () => {
    const created = spawnSync(
      process.execPath,
      ['dist/src/cli/main.js', 'partners', 'create', '--name', 'Lifecycle', '--json'],
      {
        env: { ...process.env, DATA_DIR: dataDir },
        encoding: 'utf8',
      },
    );
    const { sandbox_key } = JSON.parse(created.stdout);

    const first = await start();
    // A request whose body is still on its way when SIGTERM arrives: the server has its headers
    // (it answered 100 Continue, about to read the body) but cannot answer until the body is complete.
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port: first.port,
        method: 'POST',
        path: '/v1/promo-codes/validate',
        headers: {
          Authorization: `Bearer ${sandbox_key}`,
          'Content-Type': 'application/json',
          Expect: '100-continue',
          'Content-Length': '2',
        },
      });
      req.on('continue', () => {
        first.child.kill('SIGTERM');
        first.child.stdout!.once('data', () => req.end('{}'));
      });
      req.on('response', (res) => (res.resume(), resolve(res.statusCode!)));
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(400);
    expect(await exited(first.child)).toBe(0);
    expect(first.output()).toContain('stopped cleanly');

    const second = await start();
    const again = await fetch(`http://127.0.0.1:${second.port}/v1/ping`, {
      headers: { Authorization: `Bearer ${sandbox_key}` },
    });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { data: { environment: string } }).data.environment).toBe('sandbox');
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
    // The key never appears in logs.
    expect(first.output() + second.output()).not.toContain(sandbox_key);
  });
});

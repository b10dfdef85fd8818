import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { tempDataDir } from '../support/service.js';
import { ensureBuilt, MAIN, startChildService } from '../support/child-service.js';
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

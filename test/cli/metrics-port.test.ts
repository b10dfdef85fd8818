import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { tempDataDir } from '../support/service.js';
import { ensureBuilt, MAIN, startChildService } from '../support/child-service.js';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/wait.js';

// METRICS_PORT: the service process serves GET /metrics on a port of its own, without a token,
// and not on the API's port.

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
let dataDir: string;

beforeAll(() => {
  ensureBuilt();
  dataDir = tempDataDir();
}, 120_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('METRICS_PORT', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('when set, then /metrics answers there without a token, the API port does not serve it, and SIGTERM closes both', async () => {
    const service = await startChildService(dataDir, { METRICS_PORT: '0', ADMIN_TOKEN });
    try {
      const port = Number(/metrics on http:\/\/localhost:(\d+)\/metrics/.exec(service.output())?.[1]);
      expect(port).toBeGreaterThan(0);
      expect(port).not.toBe(service.port);
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);

      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(text).toMatch(/^http_requests_total\{method="GET",route="\/healthz",status="200"\} 1$/m);
      expect(text).toContain('process_cpu_user_seconds_total');

      const onApiPort = await fetch(`${service.url}/metrics`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(onApiPort.status).toBe(404);
    } finally {
      service.child.kill('SIGTERM');
    }
    expect(await service.exited).toBe(0);
    expect(service.output()).toContain('stopped cleanly');
  });

  it('when it is the same port as PORT, then start-up stops with one line naming METRICS_PORT', () => {
    const r = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '3999', METRICS_PORT: '3999' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe('Invalid configuration: METRICS_PORT must differ from PORT (got "3999")');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { ensureBuilt, runCli, startChildService, type ChildService } from '../support/child-service.js';
import { tempDataDir } from '../support/service.js';
import { orderBody } from '../support/orders.js';

const ADMIN_TOKEN = 'crash-rebuild-admin-token-0123456789';
let dataDir: string;
let service: ChildService | undefined;

beforeAll(() => {
  ensureBuilt();
  dataDir = tempDataDir();
});
afterAll(() => {
  service?.child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('kill -9 during a projection rebuild', () => {
  it('when the service dies while rebuilding its read models, then after a restart they match the log again', async () => {
    const { sandbox_key: key } = JSON.parse(
      runCli(dataDir, ['partners', 'create', '--name', 'Rebuild', '--rate-limit', '100000', '--json']).stdout,
    );
    service = await startChildService(dataDir, { ADMIN_TOKEN });
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${service.url}/v1/orders`, {
        method: 'POST',
        headers: { ...headers, 'Idempotency-Key': `rebuild-${i}-key` },
        body: JSON.stringify(orderBody()),
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { data: { id: string } }).data.id);
    }
    for (const name of ['orders-list', 'rider-positions']) {
      const rebuild = await fetch(`${service.url}/internal/projections/${name}/rebuild`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(rebuild.status).toBe(202);
    }
    service.child.kill('SIGKILL');
    await service.exited;

    service = await startChildService(dataDir, { ADMIN_TOKEN });
    const list = await fetch(`${service.url}/v1/orders?limit=100`, { headers });
    expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(100);
    const audit = runCli(dataDir, ['audit', 'verify', '--url', service.url], { ADMIN_TOKEN });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    const tracking = await fetch(`${service.url}/v1/orders/${ids[0]}/tracking`, { headers });
    expect(tracking.status).toBe(200);
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { demoCatalogWith, newKey, orderBody, REEM } from '../support/orders.js';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/wait.js';

const CLI = 'dist/src/cli/main.js';
const ADMIN_TOKEN = 'ops-test-admin-token-0123456789abcdef';
let t: TestService;
let p: TestPartner;

const cli = (args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, DATA_DIR: t.dataDir, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

beforeAll(async () => {
  if (!fs.existsSync(CLI)) execFileSync('npm', ['run', 'build', '--silent']);
  t = await startTestService({ env: { ADMIN_TOKEN } });
  await t.service.services.catalog.import(demoCatalogWith({ [REEM.store_id]: { auto_accept: false } }));
  p = await t.partner();
}, 120_000);
afterAll(() => t.close());

/** A live order of the demo catalog (Reem accepts by hand here), placed through the API. */
async function placeLive(): Promise<string> {
  const placed = await t.http.post('/v1/orders').set(bearer(p.live)).set('Idempotency-Key', newKey()).send(orderBody());
  expect(placed.status).toBe(201);
  return placed.body.data.id as string;
}

describe('CLI: ops', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('when an operator runs actions from the CLI, then the running service sees the order move', async () => {
    const id = await placeLive();
    for (const action of ['accept', 'start', 'ready']) {
      const r = cli(['ops', id, action]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    expect(
      cli(['ops', id, 'assign-rider', '--name', 'Ahmed', '--phone', '+96555512345', '--vehicle', 'motorbike']).code,
    ).toBe(0);
    expect(cli(['ops', id, 'rider-location', '--lat', '29.335', '--lng', '48.08']).code).toBe(0);
    const picked = cli(['ops', id, 'pickup', '--json']);
    expect(JSON.parse(picked.stdout).status).toBe('out_for_delivery');
    const got = await t.http.get(`/v1/orders/${id}`).set(bearer(p.live));
    expect(got.body.data.status).toBe('out_for_delivery');
  });

  it('when the machine refuses an action, then the CLI says why and exits 1', async () => {
    const id = await placeLive();
    const r = cli(['ops', id, 'deliver']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/invalid_transition: .*placed/);
    expect(cli(['ops', id, 'fly']).stderr).toContain('unknown action');
    expect(cli(['ops', 'ord_missing', 'accept']).stderr).toContain('order_not_found');
    expect(cli(['ops', '--help']).stdout).toContain('assign-rider');
  });

  it('when a field is past its limit, then the CLI refuses it as /internal does and the log is unchanged', async () => {
    const id = await placeLive();
    const before = await t.stores.events.readStream(`order-${id}`);
    // Characters, not UTF-16 units: 201 emoji are refused (and 200 taken, below).
    const reason = cli(['ops', id, 'cancel', '--reason', '🍕'.repeat(201)]);
    expect(reason.code).toBe(1);
    expect(reason.stderr).toContain('validation_error: reason must be at most 200 characters.');
    for (const action of ['accept', 'start', 'ready']) expect(cli(['ops', id, action]).code).toBe(0);
    const rider = cli(['ops', id, 'assign-rider', '--name', 'A', '--phone', '12', '--vehicle', 'bike']);
    expect(rider.code).toBe(1);
    expect(rider.stderr).toContain('validation_error: phone must be 4 to 32 characters.');
    const after = await t.stores.events.readStream(`order-${id}`);
    // The three actions that passed, and nothing of the two refused.
    expect(after).toHaveLength(before.length + 3);
    expect(after.map((e) => e.type)).not.toContain('OrderCancelled');
    expect(after.map((e) => e.type)).not.toContain('RiderAssigned');
    const internal = await t.http
      .post(`/internal/orders/${id}/assign-rider`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ name: 'A', phone: '12', vehicle: 'bike' });
    expect(internal.body.error.message).toBe('phone must be 4 to 32 characters.');
    const cancelled = cli(['ops', id, 'cancel', '--reason', '🍕'.repeat(200), '--json']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout).cancellation.reason).toBe('🍕'.repeat(200));
  });
});

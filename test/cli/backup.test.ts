import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureBuilt,
  runCli,
  startChildService,
  stopChildService,
  type ChildService,
} from '../support/child-service.js';
import { runCliAsync } from '../support/cli-async.js';
import { newKey, orderBody } from '../support/orders.js';
import { tempDataDir } from '../support/service.js';
import { PROCESS_TEST_TIMEOUT_MS, waitFor } from '../support/wait.js';

// `data-dir backup` copies a running service's directory: a plain copy under load can catch a page
// half-written, so the backup must be one a service starts on, holding every order acknowledged
// before it began.

let root: string;
let dataDir: string;
let sandboxKey: string;
let service: ChildService;

beforeAll(async () => {
  ensureBuilt();
  root = tempDataDir();
  dataDir = path.join(root, 'data');
  const created = runCli(dataDir, ['partners', 'create', '--name', 'Backup', '--json']);
  expect(created.code, created.stderr).toBe(0);
  sandboxKey = (JSON.parse(created.stdout) as { sandbox_key: string }).sandbox_key;
  service = await startChildService(dataDir);
}, PROCESS_TEST_TIMEOUT_MS);
afterAll(async () => {
  await stopChildService(service);
  fs.rmSync(root, { recursive: true, force: true });
});

const headers = () => ({ Authorization: `Bearer ${sandboxKey}`, 'Content-Type': 'application/json' });

describe('data-dir backup', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('when orders are being placed, then the backup holds every order answered before it began, and a service starts on it', async () => {
    const acknowledged: string[] = [];
    let placing = true;
    const client = async () => {
      while (placing) {
        const res = await fetch(`${service.url}/v1/orders`, {
          method: 'POST',
          headers: { ...headers(), 'Idempotency-Key': newKey() },
          body: JSON.stringify(orderBody()),
        });
        expect(res.status).toBe(201);
        acknowledged.push(((await res.json()) as { data: { id: string } }).data.id);
      }
    };
    const clients = Array.from({ length: 8 }, client);
    await waitFor(() => acknowledged.length >= 50, { what: '50 orders placed' });
    const before = [...acknowledged];
    const dest = path.join(root, 'backups', 'first');
    const backup = await runCliAsync(dataDir, ['data-dir', 'backup', dest]);
    const during = acknowledged.length - before.length;
    placing = false;
    await Promise.all(clients);
    expect(backup.code, backup.stderr).toBe(0);
    expect(during, 'orders placed while the backup ran').toBeGreaterThan(0);
    expect(backup.stdout).toMatch(
      /^backed up .+ to .+first: events\.db \(\d+ events, \d+ bytes\), service\.db \(\d+ bytes\), webhook-secrets\.key \(32 bytes\)\n$/,
    );
    expect(fs.readdirSync(dest).sort()).toEqual(['events.db', 'service.db', 'webhook-secrets.key']);
    expect(fs.statSync(dest).mode & 0o777).toBe(0o700);
    for (const name of fs.readdirSync(dest)) expect(fs.statSync(path.join(dest, name)).mode & 0o777, name).toBe(0o600);
    expect(fs.readFileSync(path.join(dest, 'webhook-secrets.key'))).toEqual(
      fs.readFileSync(path.join(dataDir, 'webhook-secrets.key')),
    );

    // Started on the backup (integrity and identity checked at start), every order answered before it began is there.
    const restored = await startChildService(dest);
    try {
      for (const id of before) {
        const res = await fetch(`${restored.url}/v1/orders/${id}`, { headers: headers() });
        expect(res.status, id).toBe(200);
      }
    } finally {
      expect(await stopChildService(restored)).toBe(0);
    }
  });

  it('when a database cannot be copied, then one line says so and nothing is left, not even the directories made for it', async () => {
    const broken = path.join(root, 'broken');
    fs.mkdirSync(broken);
    for (const name of ['events.db', 'service.db'])
      fs.writeFileSync(path.join(broken, name), 'not a database '.repeat(100));
    const dest = path.join(root, 'made-for-it', 'of-broken');
    const r = await runCliAsync(broken, ['data-dir', 'backup', dest]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: ${path.join(broken, 'events.db')} could not be copied (SQLITE_NOTADB: file is not a database); nothing of the backup is kept.\n`,
    );
    expect(fs.existsSync(path.join(root, 'made-for-it'))).toBe(false);
  });

  it('when the backup directory already exists, then it refuses and writes nothing there', async () => {
    const dest = path.join(root, 'backups', 'taken');
    fs.mkdirSync(dest, { recursive: true });
    const r = await runCliAsync(dataDir, ['data-dir', 'backup', dest]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: ${dest} already exists: a backup goes into a new directory.\n`);
    expect(fs.readdirSync(dest)).toEqual([]);
  });
});

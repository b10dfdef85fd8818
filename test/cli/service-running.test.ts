import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { tempDataDir } from '../support/service.js';
import {
  ensureBuilt,
  runCli,
  startChildService,
  type ChildService,
  stopChildService,
} from '../support/child-service.js';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/wait.js';

// The commands meant for no service running (they rewrite what a service read at its start) refuse
// while one runs on their DATA_DIR, as the registry of running services shows, and change nothing.
// This file has its own registry (XDG_RUNTIME_DIR), so services of other tests do not count here.

let root: string;
let dataDir: string;
let registry: string;
let service: ChildService;

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(dataDir, args, { XDG_RUNTIME_DIR: registry, ...env });

/** What the webhook endpoints hold, read without writing. */
const endpoints = () => {
  const db = new Database(path.join(dataDir, 'service.db'), { readonly: true });
  try {
    return db.prepare('SELECT partner_id, environment, secret_box, version FROM webhook_endpoints').all();
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  ensureBuilt();
  root = fs.realpathSync(tempDataDir());
  dataDir = path.join(root, 'data');
  registry = path.join(root, 'run');
  const created = cli(['partners', 'create', '--name', 'Running', '--json']);
  expect(created.code, created.stderr).toBe(0);
  const { sandbox_key } = JSON.parse(created.stdout) as { sandbox_key: string };
  service = await startChildService(dataDir, { XDG_RUNTIME_DIR: registry, WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' });
  const endpoint = await fetch(`${service.url}/v1/webhooks/endpoint`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${sandbox_key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: 'http://127.0.0.1:9999/hooks' }),
  });
  expect(endpoint.status).toBe(201);
}, PROCESS_TEST_TIMEOUT_MS);

afterAll(async () => {
  await stopChildService(service);
  fs.rmSync(root, { recursive: true, force: true });
});

describe('CLI: while a service runs on DATA_DIR', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  const running = () =>
    `error: a service is running on ${dataDir} (pid ${service.child.pid}, port ${service.port}): stop it first`;

  it('when data-dir reseal-webhook-secrets --yes runs, even with a key that opens no secret, then it refuses and the secrets stay', () => {
    const before = endpoints();
    const r = cli(['data-dir', 'reseal-webhook-secrets', '--yes'], {
      WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `${running()}, then run data-dir reseal-webhook-secrets --yes again.`,
    ]);
    expect(endpoints()).toEqual(before);
  });

  it('when data-dir adopt --yes runs, then it refuses', () => {
    const r = cli(['data-dir', 'adopt', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([`${running()}, then run data-dir adopt --yes again.`]);
  });

  it('when projections reset --yes runs on MongoDB read models, then it refuses before it connects', () => {
    const r = cli(['projections', 'reset', '--yes'], {
      READ_STORE: 'mongodb',
      MONGODB_URL: 'mongodb://127.0.0.1:1',
      WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([`${running()}, then run projections reset --yes again.`]);
  });

  it('when projections reset --yes runs on the embedded read models, then it says nothing is stored to reset, and claims no reset', () => {
    const r = cli(['projections', 'reset', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^error: projections reset: the read models are embedded \(READ_STORE=embedded\): each service process keeps its own until it ends and rebuilds them from the log at every start, so nothing is stored to reset and nothing was reset\./,
      ),
    ]);
  });
});

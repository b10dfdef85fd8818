import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { tempDataDir } from '../support/service.js';
import {
  ensureBuilt,
  MAIN,
  runCli,
  startChildService,
  type ChildService,
  stopChildService,
} from '../support/child-service.js';
import { runCliAsync } from '../support/cli-async.js';
import { newKey, orderBody } from '../support/orders.js';
import { requireMongoUrl, uniqueDbName } from '../support/mongo-server.js';
import { MongoClient } from 'mongodb';
import { decryptSecret, encryptSecret } from '../../src/webhooks/secret-box.js';

// DATA_DIR at start: a directory that has lived (partners, orders, a webhook endpoint) must never
// start as new when its event log, service.db or webhook key is lost, foreign or damaged: the
// service and the CLI refuse with one line saying what is wrong and what to do. A new directory
// starts with no ceremony, and everything in it is readable by its owner only.

const ORDERS = 40;
const ENV = { WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' };
const roots: string[] = [];
let lived: string; // never started on by a test: each test works on a copy
let sandboxKey: string;
const orderIds: string[] = [];
const firstKey = newKey();
let modesWhileRunning: Record<string, number> = {};

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;
/** The data directory id a file carries (null when it has none), read without writing. */
const readId = (file: string): unknown => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'data_directory'").get()
      ? db.prepare('SELECT id FROM data_directory').pluck().get()
      : null;
  } finally {
    db.close();
  }
};
/** The stored webhook endpoints of a directory, read without writing. */
const endpoints = (dir: string) => {
  const db = new Database(path.join(dir, 'service.db'), { readonly: true });
  try {
    return db
      .prepare('SELECT partner_id, environment, secret_box, version FROM webhook_endpoints ORDER BY environment')
      .all() as Array<{ partner_id: string; environment: string; secret_box: string; version: number }>;
  } finally {
    db.close();
  }
};
const root = () => {
  const dir = tempDataDir();
  roots.push(dir);
  return dir;
};
const copyOfLived = () => {
  const dir = path.join(root(), 'data');
  fs.cpSync(lived, dir, { recursive: true });
  return dir;
};

/** A start that must not listen: it has to end by itself (a refusal), well before the timeout. */
function startRefused(dataDir: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [MAIN], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...ENV, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, lines: r.stderr.trim().split('\n') };
}

async function stop(service: ChildService): Promise<void> {
  expect(await stopChildService(service)).toBe(0);
}

const api = (
  service: ChildService,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  fetch(`${service.url}${url}`, {
    method,
    headers: { Authorization: `Bearer ${sandboxKey}`, 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

beforeAll(async () => {
  ensureBuilt();
  lived = path.join(root(), 'data'); // missing: made by the first command
  const created = runCli(lived, ['partners', 'create', '--name', 'Data Dir', '--json']);
  expect(created.code, created.stderr).toBe(0);
  sandboxKey = (JSON.parse(created.stdout) as { sandbox_key: string }).sandbox_key;
  const service = await startChildService(lived, ENV);
  try {
    const endpoint = await api(service, 'PUT', '/v1/webhooks/endpoint', { url: 'http://127.0.0.1:9999/hooks' });
    expect(endpoint.status).toBe(201);
    for (let i = 0; i < ORDERS; i++) {
      const placed = await api(service, 'POST', '/v1/orders', orderBody({ reference: `dir-${i}` }), {
        'Idempotency-Key': i === 0 ? firstKey : newKey(),
      });
      expect(placed.status).toBe(201);
      orderIds.push(((await placed.json()) as { data: { id: string } }).data.id);
    }
    modesWhileRunning = Object.fromEntries(fs.readdirSync(lived).map((f) => [f, modeOf(path.join(lived, f))]));
  } finally {
    await stop(service);
  }
}, 180_000);
afterAll(() => {
  for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the event log is lost', () => {
  it('when events.db is emptied or removed, then the service and the CLI refuse with one line and create nothing; restored from backup, the orders are back', async () => {
    const dir = copyOfLived();
    const events = path.join(dir, 'events.db');
    fs.truncateSync(events, 0);
    const emptied = startRefused(dir);
    expect(emptied.status).toBe(1);
    expect(emptied.lines).toHaveLength(1);
    expect(emptied.lines[0]).toMatch(
      /^Failed to start: .*events\.db is missing or empty, but this data directory has been in use .*Restore events\.db .*from a backup/,
    );
    const cli = runCli(dir, ['partners', 'list']);
    expect(cli.code).toBe(1);
    expect(cli.stderr.trim().split('\n')).toEqual([`error: ${emptied.lines[0]!.replace(/^Failed to start: /, '')}`]);
    expect(fs.statSync(events).size).toBe(0);

    for (const f of fs.readdirSync(dir).filter((f) => f.startsWith('events.db'))) fs.rmSync(path.join(dir, f));
    const removed = startRefused(dir);
    expect(removed.status).toBe(1);
    expect(removed.lines).toEqual([emptied.lines[0]]);
    expect(fs.existsSync(events)).toBe(false);

    fs.copyFileSync(path.join(lived, 'events.db'), events); // the backup
    const service = await startChildService(dir, ENV);
    try {
      expect((await api(service, 'GET', `/v1/orders/${orderIds[0]}`)).status).toBe(200);
      // The idempotency claims came back with the log: a retry of the first order is no new order.
      const retried = await api(service, 'POST', '/v1/orders', orderBody({ reference: 'dir-0' }), {
        'Idempotency-Key': firstKey,
      });
      expect(retried.status).toBe(200);
      expect(((await retried.json()) as { data: { id: string } }).data.id).toBe(orderIds[0]);
    } finally {
      await stop(service);
    }
  });

  it('when events.db comes from another directory, then the start is refused; after data-dir adopt --yes the directory starts on that log', async () => {
    const dir = copyOfLived();
    const other = path.join(root(), 'other');
    expect(runCli(other, ['partners', 'create', '--name', 'Other']).code).toBe(0); // a directory of its own, with its own id
    fs.copyFileSync(path.join(other, 'events.db'), path.join(dir, 'events.db'));
    const refused = startRefused(dir);
    expect(refused.status).toBe(1);
    expect(refused.lines).toHaveLength(1);
    expect(refused.lines[0]).toMatch(
      /events\.db belongs to data directory [0-9a-f-]{36} but service\.db to [0-9a-f-]{36}: .*data-dir adopt --yes/,
    );
    // A read-only diagnostic reads the log that is there, with a warning, and changes nothing.
    const ids = () => ['events.db', 'service.db'].map((f) => readId(path.join(dir, f)));
    const before = ids();
    const browsed = runCli(dir, ['streams', 'list', '--json']);
    expect(browsed.code, browsed.stderr).toBe(0);
    expect(browsed.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^warning: reading .*events\.db alone; the service refuses this directory: .*belongs to data directory/,
      ),
    ]);
    expect(ids()).toEqual(before);
    expect(runCli(dir, ['partners', 'list']).code).toBe(1); // not a diagnostic of the log

    expect(runCli(dir, ['data-dir', 'adopt']).code).toBe(1); // not without --yes
    const adopted = runCli(dir, ['data-dir', 'adopt', '--yes']);
    expect(adopted.code, adopted.stderr).toBe(0);
    const service = await startChildService(dir, ENV);
    try {
      expect((await api(service, 'GET', `/v1/orders/${orderIds[0]}`)).status).toBe(404); // the other log has no orders
      expect((await api(service, 'GET', '/v1/ping')).status).toBe(200); // the partners stayed
    } finally {
      await stop(service);
    }
  });

  it('when service.db is removed beside a log that has lived, then the start is refused and service.db is not made again', () => {
    const dir = copyOfLived();
    for (const f of fs.readdirSync(dir).filter((f) => f.startsWith('service.db'))) fs.rmSync(path.join(dir, f));
    const refused = startRefused(dir);
    expect(refused.status).toBe(1);
    expect(refused.lines).toHaveLength(1);
    expect(refused.lines[0]).toMatch(
      /service\.db is missing or empty, but events\.db holds the event log of data directory .*Restore service\.db/,
    );
    expect(fs.existsSync(path.join(dir, 'service.db'))).toBe(false);

    const history = runCli(dir, ['orders', 'history', orderIds[0]!, '--json']);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stderr).toMatch(
      /^warning: reading .*events\.db alone; the service refuses this directory: .*service\.db is missing or empty/,
    );
    expect((JSON.parse(history.stdout) as { events: unknown[] }).events.length).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(dir, 'service.db'))).toBe(false);
    expect(startRefused(dir).lines).toEqual(refused.lines);
  });

  it('when a directory from before the id starts, then it gets one; if its log is gone, it is refused all the same', async () => {
    const dir = copyOfLived();
    for (const f of ['events.db', 'service.db']) {
      const db = new Database(path.join(dir, f));
      db.exec('DROP TABLE data_directory');
      db.close();
    }
    const legacy = copyOfLived();
    fs.copyFileSync(path.join(dir, 'service.db'), path.join(legacy, 'service.db'));
    fs.truncateSync(path.join(legacy, 'events.db'), 0);

    const service = await startChildService(dir, ENV);
    try {
      expect((await api(service, 'GET', `/v1/orders/${orderIds[1]}`)).status).toBe(200);
    } finally {
      await stop(service);
    }
    const ids = ['events.db', 'service.db'].map((f) => {
      const db = new Database(path.join(dir, f), { readonly: true });
      const id = db.prepare('SELECT id FROM data_directory').pluck().get();
      db.close();
      return id;
    });
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toBe(ids[0]);

    const refused = startRefused(legacy);
    expect(refused.status).toBe(1);
    expect(refused.lines[0]).toMatch(
      /events\.db is missing or empty, but this data directory has been in use \(service\.db has partners or webhook endpoints\)/,
    );
  });

  it('when both files are removed and only the key file stays, or a key file is placed before the first start, then the directory starts as new', async () => {
    const reset = copyOfLived();
    for (const f of fs.readdirSync(reset).filter((f) => f.endsWith('.db') || f.includes('.db-')))
      fs.rmSync(path.join(reset, f));
    expect(fs.existsSync(path.join(reset, 'webhook-secrets.key'))).toBe(true);
    const service = await startChildService(reset, ENV);
    await stop(service);

    const placed = path.join(root(), 'placed');
    fs.mkdirSync(placed, { mode: 0o700 });
    fs.writeFileSync(path.join(placed, 'webhook-secrets.key'), randomBytes(32), { mode: 0o600 });
    const created = runCli(placed, ['partners', 'create', '--name', 'Placed']);
    expect(created.code, created.stderr).toBe(0);
    expect(readId(path.join(placed, 'events.db'))).toBe(readId(path.join(placed, 'service.db')));
  });
});

describe('a new directory', () => {
  it('when several processes start on it at once, then none is refused and both files get the same id', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = path.join(root(), `concurrent-${round}`);
      const runs = await Promise.all(
        Array.from({ length: 4 }, (_, i) => runCliAsync(dir, ['partners', 'create', '--name', `Concurrent ${i}`])),
      );
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      const id = readId(path.join(dir, 'events.db'));
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(readId(path.join(dir, 'service.db'))).toBe(id);
    }
  }, 120_000);
});

describe('the webhook secrets key', () => {
  it('when the key file is missing or another key, or WEBHOOK_SECRETS_KEY opens no stored secret, then the start is refused and no key is made', async () => {
    const dir = copyOfLived();
    const keyFile = path.join(dir, 'webhook-secrets.key');
    const key = fs.readFileSync(keyFile);
    fs.rmSync(keyFile);
    const missing = startRefused(dir);
    expect(missing.status).toBe(1);
    expect(missing.lines).toHaveLength(1);
    expect(missing.lines[0]).toMatch(
      /webhook-secrets\.key is missing, but webhook endpoints hold signing secrets sealed with it.*Restore webhook-secrets\.key from a backup/,
    );
    expect(fs.existsSync(keyFile)).toBe(false);
    // Commands that do not use the webhook secrets still run; one that does is refused the same way.
    const listed = runCli(dir, ['partners', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const ops = runCli(dir, ['ops', orderIds[2]!, 'cancel', '--reason', 'test']);
    expect(ops.code).toBe(1);
    expect(ops.stderr).toMatch(/webhook-secrets\.key is missing, but webhook endpoints hold signing secrets/);
    expect(fs.existsSync(keyFile)).toBe(false);

    fs.writeFileSync(keyFile, randomBytes(32), { mode: 0o600 });
    const wrong = startRefused(dir);
    expect(wrong.status).toBe(1);
    expect(wrong.lines[0]).toMatch(/webhook-secrets\.key does not open the stored webhook signing secrets/);

    fs.writeFileSync(keyFile, key);
    const wrongEnv = startRefused(dir, { WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64') });
    expect(wrongEnv.status).toBe(1);
    expect(wrongEnv.lines).toEqual([
      expect.stringMatching(
        /^Failed to start: WEBHOOK_SECRETS_KEY does not open the stored webhook signing secrets: .*Set WEBHOOK_SECRETS_KEY to the key they were sealed with/,
      ),
    ]);

    const service = await startChildService(dir, ENV); // the right key again
    await stop(service);
  });

  it('when the key is lost for good, then data-dir reseal-webhook-secrets --yes gives the endpoint a new secret and the service starts', async () => {
    const dir = copyOfLived();
    fs.rmSync(path.join(dir, 'webhook-secrets.key'));
    expect(runCli(dir, ['data-dir', 'reseal-webhook-secrets']).code).toBe(1); // not without --yes
    const resealed = runCli(dir, ['data-dir', 'reseal-webhook-secrets', '--yes']);
    expect(resealed.code, resealed.stderr).toBe(0);
    expect(resealed.stdout).toContain('resealed 1 webhook endpoint(s)');
    const service = await startChildService(dir, ENV);
    try {
      const rotated = await api(service, 'POST', '/v1/webhooks/endpoint/rotate-secret');
      expect(rotated.status).toBe(200);
    } finally {
      await stop(service);
    }
  });

  it('when the key opens every stored secret, then data-dir reseal-webhook-secrets --yes refuses with one line and changes nothing', () => {
    const dir = copyOfLived();
    const before = endpoints(dir);
    const refused = runCli(dir, ['data-dir', 'reseal-webhook-secrets', '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `error: ${path.join(dir, 'webhook-secrets.key')} opens every stored webhook signing secret (1 endpoint(s)): nothing to reseal, nothing changed; the service starts with this key.`,
    ]);
    expect(refused.stdout).toBe('');
    expect(endpoints(dir)).toEqual(before);
  });

  it('when the key opens some stored secrets and not others, then only those it does not open are resealed, and named', () => {
    const dir = copyOfLived();
    const [sandbox] = endpoints(dir);
    const db = new Database(path.join(dir, 'service.db'));
    try {
      // Another endpoint of the partner, sealed with a key that is lost.
      db.prepare(
        `INSERT INTO webhook_endpoints SELECT partner_id, 'live', url, events, ?, secret_hint, NULL, NULL, created_at, updated_at, 1
         FROM webhook_endpoints WHERE environment = 'sandbox'`,
      ).run(encryptSecret('whsec_lost0000000000000000', randomBytes(32)));
    } finally {
      db.close();
    }
    const resealed = runCli(dir, ['data-dir', 'reseal-webhook-secrets', '--yes']);
    expect(resealed.code, resealed.stderr).toBe(0);
    expect(resealed.stdout).toBe(
      `resealed 1 webhook endpoint(s); 1 kept theirs (${path.join(dir, 'webhook-secrets.key')} opens them); ` +
        'each partner below gets its new secret with POST /v1/webhooks/endpoint/rotate-secret\n' +
        `  ${sandbox!.partner_id} live\n`,
    );
    const after = endpoints(dir);
    expect(after.find((e) => e.environment === 'sandbox')).toEqual(sandbox);
    const key = fs.readFileSync(path.join(dir, 'webhook-secrets.key'));
    expect(decryptSecret(after.find((e) => e.environment === 'live')!.secret_box, key)).toMatch(/^whsec_/);
  });

  it("when the key opens an endpoint's current secret but not its unexpired previous one, then only the previous one is dropped, and said", () => {
    const dir = copyOfLived();
    const [sandbox] = endpoints(dir);
    const db = new Database(path.join(dir, 'service.db'));
    try {
      db.prepare(
        `UPDATE webhook_endpoints SET previous_secret_box = ?, previous_secret_expires_at = '2999-01-01T00:00:00.000Z'`,
      ).run(encryptSecret('whsec_elsewhere00000000000000', randomBytes(32)));
    } finally {
      db.close();
    }
    const run = runCli(dir, ['data-dir', 'reseal-webhook-secrets', '--yes']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `dropped the previous secret, which ${path.join(dir, 'webhook-secrets.key')} does not open, of 1 endpoint(s) that keep their current one:\n  ${sandbox!.partner_id} sandbox\n`,
    );
    const after = new Database(path.join(dir, 'service.db'), { readonly: true });
    try {
      expect(
        after
          .prepare('SELECT secret_box, previous_secret_box, previous_secret_expires_at FROM webhook_endpoints')
          .get(),
      ).toEqual({
        secret_box: sandbox!.secret_box,
        previous_secret_box: null,
        previous_secret_expires_at: null,
      });
    } finally {
      after.close();
    }
  });
});

const mongoUrl = requireMongoUrl('webhook secrets key check on MongoDB');
describe.skipIf(!mongoUrl)('the webhook secrets key, on MongoDB', () => {
  it('when WEBHOOK_SECRETS_KEY is another key than the one that sealed the secrets, then the start is refused; resealed with it, the service starts', async () => {
    const dbName = uniqueDbName('secrets_key');
    const keyA = randomBytes(32).toString('base64');
    const keyB = randomBytes(32).toString('base64');
    const env = {
      ...ENV,
      READ_STORE: 'mongodb',
      MONGODB_URL: mongoUrl!,
      MONGODB_DB: dbName,
      SQLITE_SYNCHRONOUS: 'NORMAL',
    };
    const dir = path.join(root(), 'data');
    try {
      const created = runCli(dir, ['partners', 'create', '--name', 'Mongo', '--json'], {
        ...env,
        WEBHOOK_SECRETS_KEY: keyA,
      });
      expect(created.code, created.stderr).toBe(0);
      const auth = { Authorization: `Bearer ${(JSON.parse(created.stdout) as { sandbox_key: string }).sandbox_key}` };
      const first = await startChildService(dir, { ...env, WEBHOOK_SECRETS_KEY: keyA });
      try {
        expect(
          (await api(first, 'PUT', '/v1/webhooks/endpoint', { url: 'http://127.0.0.1:9999/hooks' }, auth)).status,
        ).toBe(201);
      } finally {
        await stop(first);
      }
      const refused = startRefused(dir, { ...env, WEBHOOK_SECRETS_KEY: keyB });
      expect(refused.status).toBe(1);
      expect(refused.lines).toEqual([
        expect.stringMatching(/^Failed to start: WEBHOOK_SECRETS_KEY does not open the stored webhook signing secrets/),
      ]);
      const resealed = runCli(dir, ['data-dir', 'reseal-webhook-secrets', '--yes'], {
        ...env,
        WEBHOOK_SECRETS_KEY: keyB,
      });
      expect(resealed.stdout).toContain('resealed 1 webhook endpoint(s)');
      const second = await startChildService(dir, { ...env, WEBHOOK_SECRETS_KEY: keyB });
      try {
        expect((await api(second, 'POST', '/v1/webhooks/endpoint/rotate-secret', undefined, auth)).status).toBe(200);
      } finally {
        await stop(second);
      }
    } finally {
      const client = await new MongoClient(mongoUrl!).connect();
      await client
        .db(dbName)
        .dropDatabase()
        .catch(() => undefined);
      await client.close();
    }
  });
});

describe('a damaged event log', () => {
  it('when a page in the middle of events.db is overwritten, then the start ends at once with one line naming the file and the backup', () => {
    const dir = copyOfLived();
    const file = path.join(dir, 'events.db');
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)'); // every page in the file itself
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const bytes = fs.readFileSync(file);
    const eventPages: number[] = [];
    for (let p = 1; p < bytes.length / pageSize; p++) {
      const page = bytes.subarray(p * pageSize, (p + 1) * pageSize);
      if (page[0] === 0x0d && page.includes('OrderPlaced')) eventPages.push(p); // a leaf of the events table
    }
    expect(eventPages.length).toBeGreaterThan(2);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, randomBytes(pageSize), 0, pageSize, eventPages[Math.floor(eventPages.length / 2)]! * pageSize);
    fs.closeSync(fd);

    const started = Date.now();
    const refused = startRefused(dir);
    expect(refused.status).toBe(1);
    expect(refused.lines).toHaveLength(1);
    expect(refused.lines[0]).toMatch(
      /^Failed to start: .*events\.db is damaged \(SQLite: .*\)\. Stop every process using DATA_DIR and restore events\.db .*from a backup/,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe('an unusable DATA_DIR', () => {
  it('when DATA_DIR is a file, or a file of the service in it is a directory, then the service and the CLI refuse with one line naming it', () => {
    const file = path.join(root(), 'not-a-directory');
    fs.writeFileSync(file, '');
    const withDirectory = (name: string) => {
      const dir = path.join(root(), 'data');
      fs.mkdirSync(path.join(dir, name), { recursive: true });
      return [dir, `${path.join(dir, name)} cannot be used`] as const;
    };
    for (const [dataDir, named] of [
      [file, `DATA_DIR ${file} cannot be used`] as const,
      withDirectory('service.db'),
      withDirectory('webhook-secrets.key'),
    ]) {
      const refused = startRefused(dataDir);
      expect(refused.status).toBe(1);
      expect(refused.lines).toEqual([expect.stringContaining(named)]);
      const cli = runCli(dataDir, ['partners', 'create', '--name', 'Refused']);
      expect(cli.code).toBe(1);
      expect(cli.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^error: .*${named}`))]);
    }
    // The commands that open the directory their own way refuse the same way.
    const [withLogDirectory, logNamed] = withDirectory('events.db');
    const adopt = runCli(withLogDirectory, ['data-dir', 'adopt', '--yes']);
    expect(adopt.code).toBe(1);
    expect(adopt.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^error: ${logNamed} \\(EISDIR`)),
    ]);
    const backup = runCli(file, ['data-dir', 'backup', path.join(root(), 'backup-of-a-file')]);
    expect(backup.code).toBe(1);
    expect(backup.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^error: DATA_DIR ${file} cannot be used \\(ENOTDIR`)),
    ]);
    expect(fs.existsSync(path.join(root(), 'backup-of-a-file'))).toBe(false);
  });
});

describe('permissions', () => {
  it('when a directory is made, then it is 0700 and every file in it 0600, -wal and -shm included', () => {
    expect(modeOf(lived)).toBe(0o700);
    expect(Object.keys(modesWhileRunning)).toEqual(
      expect.arrayContaining(['events.db', 'events.db-wal', 'events.db-shm', 'service.db', 'webhook-secrets.key']),
    );
    for (const [file, mode] of Object.entries(modesWhileRunning))
      expect([file, mode.toString(8)]).toEqual([file, '600']);
  });

  it('when files of an existing directory are readable by others, then a start takes that away', async () => {
    const dir = copyOfLived();
    fs.chmodSync(dir, 0o755);
    for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o644);
    const service = await startChildService(dir, ENV);
    await stop(service);
    for (const f of fs.readdirSync(dir)) expect([f, modeOf(path.join(dir, f)).toString(8)]).toEqual([f, '600']);
    expect(modeOf(dir)).toBe(0o755); // an existing directory keeps its mode
  });
});

import fs from 'node:fs';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoReadModelStore } from '../../src/adapters/mongodb/read-model-store.js';
import { PROJECTIONS } from '../../projections/index.js';
import { ensureBuilt, MAIN, runCli, startChildService, stopChildService } from '../support/child-service.js';
import { requireMongoUrl, uniqueDbName, mongoReadStoreEnv } from '../support/mongo-server.js';
import { tempDataDir } from '../support/service.js';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/wait.js';
import { spawnSync } from 'node:child_process';

// Read models in MongoDB keep their checkpoints; the event log is elsewhere. When the log is
// replaced under them (a wiped volume, another directory), the service must refuse to start with
// one clear line, and the operator's way out must work with no service running.

const mongoUrl = requireMongoUrl('checkpoint refusal at start (MongoDB read models)');
let client: MongoClient | undefined;
const dbName = uniqueDbName('checkpoints');
beforeAll(() => ensureBuilt(), 120_000);
afterAll(async () => {
  await client
    ?.db(dbName)
    .dropDatabase()
    .catch(() => undefined);
  await client?.close();
});

describe.skipIf(!mongoUrl)(
  'a stored checkpoint past the head of the event log',
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    it('when the service starts, then it exits 1 with one line saying what is wrong and what to do; after projections reset it starts', async () => {
      client = await new MongoClient(mongoUrl!).connect();
      const store = new MongoReadModelStore(client.db(dbName));
      for (const p of PROJECTIONS) await store.saveCheckpoint(p.name, 4242n); // read models that lived on another log
      const dataDir = tempDataDir();
      const env = {
        DATA_DIR: dataDir,
        ...mongoReadStoreEnv(mongoUrl!, dbName),
        SQLITE_SYNCHRONOUS: 'NORMAL',
      };
      const refused = spawnSync(process.execPath, [MAIN], {
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(refused.status).toBe(1);
      const lines = refused.stderr.trim().split('\n');
      expect(lines).toEqual([
        'Failed to start: Position 4242 is past the head of the event log (0): the event store was wiped or replaced under read models ' +
          'that kept their checkpoints. Restore the event store, or rebuild the read models.',
      ]);

      expect(runCli(dataDir, ['projections', 'reset'], env).code).toBe(1); // not without --yes
      const reset = runCli(dataDir, ['projections', 'reset', '--yes'], env);
      expect(reset.code, reset.stderr).toBe(0);
      expect(reset.stdout).toContain('reset orders-list');
      for (const p of PROJECTIONS) expect(await store.checkpoint(p.name)).toBe(0n);

      const service = await startChildService(dataDir, { ...env, LOG_LEVEL: 'info' });
      expect(await stopChildService(service)).toBe(0);
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
  },
);

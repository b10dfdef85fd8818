import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MongoClient, type Db } from 'mongodb';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { tableName } from '../../src/adapters/sqlite/read-model-sql.js';
import { MongoReadModelStore } from '../../src/adapters/mongodb/read-model-store.js';
import { requireMongoUrl, uniqueDbName } from '../support/mongo-server.js';
import { readModelStoreContract } from './read-model-store.contract.js';

readModelStoreContract('embedded (SQLite, temporary)', async () => {
  const store = new SqliteReadModelStore();
  store.ensureIndexes('rows', [{ partner: 1, created_at: -1, _id: -1 }, { reference: 1 }]);
  return store;
});

// mongo-java-server in CI (started by the global set-up), a real MongoDB when MONGODB_URL is set.
const mongoUrl = requireMongoUrl('ReadModelStore contract: MongoDB');
let client: MongoClient | undefined;
const dbs: Db[] = [];

readModelStoreContract(
  'MongoDB',
  async () => {
    client ??= await new MongoClient(mongoUrl!).connect();
    const db = client.db(uniqueDbName('rm_contract'));
    dbs.push(db);
    const store = new MongoReadModelStore(db);
    // The indexes a read model asks for are created at start; the suite's queries run with them.
    await store.ensureIndexes('rows', [{ partner: 1, created_at: -1, _id: -1 }, { reference: 1 }]);
    return store;
  },
  !mongoUrl,
);

afterAll(async () => {
  for (const db of dbs) await db.dropDatabase().catch(() => undefined);
  await client?.close();
});

describe('embedded read models: importRows (documents another thread projected)', () => {
  it('when serialised documents are imported, then they read, query and compare-and-set like written ones', async () => {
    const store = new SqliteReadModelStore();
    store.ensureIndexes('rows', [{ partner: 1, created_at: -1, _id: -1 }, { reference: 1 }]);
    await store.put('rows', { id: 'a', seq: 1, versions: { 's-a': 0 }, doc: { partner: 'p1', created_at: '1', reference: 'old' } }, null);
    // One row names every indexed field; the other leaves `reference` out, so it is read from the JSON.
    store.importRows('rows', [
      ['a', 2, '{"s-a":1}', '{"partner":"p1","created_at":"2","reference":"r-a"}', { partner: 'p1', created_at: '2', reference: 'r-a' }],
      ['b', 1, '{"s-b":0}', '{"partner":"p1","created_at":"3","reference":"r-b"}', { partner: 'p1', created_at: '3' }],
    ]);
    expect(await store.get('rows', 'a')).toEqual({ id: 'a', seq: 2, versions: { 's-a': 1 }, doc: { partner: 'p1', created_at: '2', reference: 'r-a' } });
    expect((await store.find('rows', { where: { reference: 'r-b' }, sort: { field: 'created_at', direction: 'desc' }, limit: 5 })).map((d) => d.id)).toEqual(['b']);
    expect(await store.count('rows', { partner: 'p1' })).toBe(2);
    expect(await store.put('rows', { id: 'a', seq: 3, versions: {}, doc: {} }, 1)).toBe(false);
    expect(await store.put('rows', { id: 'a', seq: 3, versions: {}, doc: {} }, 2)).toBe(true);
    await store.close();
  });
});

describe('embedded read models: pending writes', () => {
  it('a document written twice within the flush window is stored once, at its newer version; reads never wait for the window', async () => {
    vi.useFakeTimers();
    const dir = mkdtempSync(join(tmpdir(), 'read-models-'));
    const file = join(dir, 'read-models.db');
    const store = new SqliteReadModelStore(file);
    const rowsOnDisk = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare(`SELECT id, seq FROM ${tableName('rows')} ORDER BY id`).all() as Array<{ id: string; seq: number }>;
      } finally {
        db.close();
      }
    };
    try {
      await store.put('rows', { id: 'a', seq: 1, versions: { 's-a': 0 }, doc: { n: 1 } }, null);
      await vi.advanceTimersByTimeAsync(10);
      await store.put('rows', { id: 'a', seq: 2, versions: { 's-a': 1 }, doc: { n: 2 } }, 1);
      expect(rowsOnDisk()).toEqual([]);
      expect(await store.get('rows', 'a')).toMatchObject({ seq: 2, doc: { n: 2 } });
      await vi.advanceTimersByTimeAsync(60);
      expect(rowsOnDisk()).toEqual([{ id: 'a', seq: 2 }]);
      // A query commits what is pending first.
      await store.put('rows', { id: 'b', seq: 1, versions: { 's-b': 0 }, doc: { n: 3 } }, null);
      expect((await store.all('rows')).map((d) => d.id)).toEqual(['a', 'b']);
      expect(rowsOnDisk()).toEqual([{ id: 'a', seq: 2 }, { id: 'b', seq: 1 }]);
    } finally {
      vi.useRealTimers();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { MongoClient, type Db } from 'mongodb';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
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

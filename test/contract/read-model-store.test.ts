import { afterAll } from 'vitest';
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

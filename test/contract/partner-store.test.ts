import { afterAll } from 'vitest';
import { MongoClient, type Db } from 'mongodb';
import { openSqlite } from '../../src/adapters/sqlite/open.js';
import { SqlitePartnerStore } from '../../src/adapters/sqlite/partner-store.js';
import { MongoPartnerStore } from '../../src/adapters/mongodb/partner-store.js';
import { partnerStoreContract } from './partner-store.contract.js';
import { mongoTestServers, uniqueDbName } from '../support/mongo-server.js';

partnerStoreContract('embedded SQLite', async () => new SqlitePartnerStore(openSqlite(':memory:')));

const clients: MongoClient[] = [];
const dbs: Db[] = [];
for (const server of mongoTestServers('PartnerStore contract')) {
  partnerStoreContract(
    `MongoDB [${server.name}]`,
    async () => {
      const client = new MongoClient(server.url!);
      clients.push(client);
      const db = client.db(uniqueDbName('partners'));
      dbs.push(db);
      const store = new MongoPartnerStore(db);
      await store.init();
      return store;
    },
    !server.url,
  );
}
afterAll(async () => {
  for (const db of dbs) await db.dropDatabase().catch(() => undefined);
  for (const c of clients) await c.close();
});

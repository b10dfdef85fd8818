import { afterAll } from 'vitest';
import { MongoClient } from 'mongodb';
import { openSqlite } from '../../src/adapters/sqlite/open.js';
import { SqlitePartnerStore } from '../../src/adapters/sqlite/partner-store.js';
import { MongoPartnerStore } from '../../src/adapters/mongodb/partner-store.js';
import { partnerStoreContract } from './partner-store.contract.js';
import { requireMongoUrl, uniqueDbName } from '../support/mongo-server.js';

partnerStoreContract('embedded SQLite', async () => new SqlitePartnerStore(openSqlite(':memory:')));

const mongoUrl = requireMongoUrl('PartnerStore contract: MongoDB');
const clients: MongoClient[] = [];
partnerStoreContract(
  'MongoDB',
  async () => {
    const client = new MongoClient(mongoUrl!);
    clients.push(client);
    const store = new MongoPartnerStore(client.db(uniqueDbName('partners')));
    await store.init();
    return store;
  },
  !mongoUrl,
);
afterAll(async () => {
  for (const c of clients) await c.close();
});

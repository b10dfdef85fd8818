import { afterAll } from 'vitest';
import { MongoClient, type Db } from 'mongodb';
import { openSqlite } from '../../src/adapters/sqlite/open.js';
import { SqliteWebhookEndpointStore } from '../../src/adapters/sqlite/webhook-endpoint-store.js';
import { MongoWebhookEndpointStore } from '../../src/adapters/mongodb/webhook-endpoint-store.js';
import { webhookEndpointStoreContract } from './webhook-endpoint-store.contract.js';
import { mongoTestServers, uniqueDbName } from '../support/mongo-server.js';

webhookEndpointStoreContract('embedded SQLite', async () => new SqliteWebhookEndpointStore(openSqlite(':memory:')));

const clients: MongoClient[] = [];
const dbs: Db[] = [];
for (const server of mongoTestServers('WebhookEndpointStore contract')) {
  webhookEndpointStoreContract(
    `MongoDB [${server.name}]`,
    async () => {
      const client = new MongoClient(server.url!);
      clients.push(client);
      const db = client.db(uniqueDbName('webhook_endpoints'));
      dbs.push(db);
      return new MongoWebhookEndpointStore(db);
    },
    !server.url,
  );
}
afterAll(async () => {
  for (const db of dbs) await db.dropDatabase().catch(() => undefined);
  for (const c of clients) await c.close();
});

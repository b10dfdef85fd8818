import { afterAll } from 'vitest';
import { MongoClient } from 'mongodb';
import { openSqlite } from '../../src/adapters/sqlite/open.js';
import { SqliteWebhookEndpointStore } from '../../src/adapters/sqlite/webhook-endpoint-store.js';
import { MongoWebhookEndpointStore } from '../../src/adapters/mongodb/webhook-endpoint-store.js';
import { webhookEndpointStoreContract } from './webhook-endpoint-store.contract.js';
import { requireMongoUrl, uniqueDbName } from '../support/mongo-server.js';

webhookEndpointStoreContract('embedded SQLite', async () => new SqliteWebhookEndpointStore(openSqlite(':memory:')));

const mongoUrl = requireMongoUrl('WebhookEndpointStore contract: MongoDB');
const clients: MongoClient[] = [];
webhookEndpointStoreContract(
  'MongoDB',
  async () => {
    const client = new MongoClient(mongoUrl!);
    clients.push(client);
    return new MongoWebhookEndpointStore(client.db(uniqueDbName('webhook_endpoints')));
  },
  !mongoUrl,
);
afterAll(async () => {
  for (const c of clients) await c.close();
});

import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { Environment } from '../../ports/partner-store.js';
import type { WebhookEndpointRecord, WebhookEndpointStore } from '../../ports/webhook-endpoint-store.js';

type EndpointDoc = WebhookEndpointRecord & { _id: string };

const idOf = (partnerId: string, environment: Environment) => `${partnerId}:${environment}`;
const DUPLICATE_KEY = 11000;

/** Endpoints in the `webhook_endpoints` collection, one document per partner and environment. */
export class MongoWebhookEndpointStore implements WebhookEndpointStore {
  private readonly endpoints: Collection<EndpointDoc>;

  constructor(db: Db) {
    this.endpoints = db.collection<EndpointDoc>('webhook_endpoints');
  }

  async get(partnerId: string, environment: Environment): Promise<WebhookEndpointRecord | null> {
    const doc = await this.endpoints.findOne({ _id: idOf(partnerId, environment) });
    if (!doc) return null;
    const { _id, ...record } = doc;
    return record;
  }

  async save(record: WebhookEndpointRecord, expectedVersion: number | null): Promise<boolean> {
    const _id = idOf(record.partner_id, record.environment);
    if (expectedVersion === null) {
      try {
        await this.endpoints.insertOne({ _id, ...record });
        return true;
      } catch (e) {
        if (e instanceof MongoServerError && e.code === DUPLICATE_KEY) return false;
        throw e;
      }
    }
    const result = await this.endpoints.replaceOne({ _id, version: expectedVersion }, { ...record });
    return result.matchedCount === 1;
  }
}

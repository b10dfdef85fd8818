import type { Collection, Db } from 'mongodb';
import type { Environment } from '../../domain/environment.js';
import type { WebhookEndpointRecord, WebhookEndpointStore } from '../../ports/webhook-endpoint-store.js';
import { Claims, isDuplicateKey, updatesAreAtomic } from './claims.js';
import { mongoCall } from './storage-errors.js';

type EndpointDoc = WebhookEndpointRecord & { _id: string };

const COLLECTION = 'webhook_endpoints';
const STORE = 'webhook endpoint store';
const idOf = (partnerId: string, environment: Environment) => `${partnerId}:${environment}`;

/**
 * Endpoints in the `webhook_endpoints` collection, one document per partner and environment. An
 * update is a compare-and-set on `version`; where filtered updates are not atomic (FerretDB) it
 * first takes a claim (see claims.ts).
 */
export class MongoWebhookEndpointStore implements WebhookEndpointStore {
  private readonly endpoints: Collection<EndpointDoc>;
  private readonly claims: Claims;

  constructor(private readonly db: Db) {
    this.endpoints = db.collection<EndpointDoc>(COLLECTION);
    this.claims = new Claims(db);
  }

  async get(partnerId: string, environment: Environment): Promise<WebhookEndpointRecord | null> {
    const doc = await mongoCall(STORE, () => this.endpoints.findOne({ _id: idOf(partnerId, environment) }));
    if (!doc) return null;
    const { _id, ...record } = doc;
    return record;
  }

  save(record: WebhookEndpointRecord, expectedVersion: number | null): Promise<boolean> {
    return mongoCall(STORE, () => this.write(record, expectedVersion));
  }

  delete(partnerId: string, environment: Environment, expectedVersion: number): Promise<boolean> {
    return mongoCall(STORE, async () => {
      const _id = idOf(partnerId, environment);
      const remove = async () => (await this.endpoints.deleteOne({ _id, version: expectedVersion })).deletedCount === 1;
      if (await updatesAreAtomic(this.db)) return remove();
      return (
        (await this.claims.tryWith(COLLECTION, JSON.stringify([COLLECTION, _id, expectedVersion]), remove))?.value ??
        false
      );
    });
  }

  private async write(record: WebhookEndpointRecord, expectedVersion: number | null): Promise<boolean> {
    const _id = idOf(record.partner_id, record.environment);
    if (expectedVersion === null) {
      try {
        await this.endpoints.insertOne({ _id, ...record });
        return true;
      } catch (e) {
        if (isDuplicateKey(e)) return false;
        throw e;
      }
    }
    const replace = async () =>
      (await this.endpoints.replaceOne({ _id, version: expectedVersion }, { ...record })).matchedCount === 1;
    if (await updatesAreAtomic(this.db)) return replace();
    return (
      (await this.claims.tryWith(COLLECTION, JSON.stringify([COLLECTION, _id, expectedVersion]), replace))?.value ??
      false
    );
  }
}

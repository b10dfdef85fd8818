import type { Collection, Db } from 'mongodb';
import type { ApiKeyRecord, Partner, PartnerStore } from '../../ports/partner-store.js';
import { mongoCall } from './storage-errors.js';

const STORE = 'partner store';

type PartnerDoc = Partner & { _id: string };
type KeyDoc = ApiKeyRecord & { _id: string };

const strip = <T extends { _id: string }>({ _id, ...rest }: T): Omit<T, '_id'> => rest;

export class MongoPartnerStore implements PartnerStore {
  private readonly partners: Collection<PartnerDoc>;
  private readonly keys: Collection<KeyDoc>;

  constructor(private readonly db: Db) {
    this.partners = db.collection<PartnerDoc>('partners');
    this.keys = db.collection<KeyDoc>('api_keys');
  }

  async init(): Promise<void> {
    await this.keys.createIndex({ key_hash: 1 }, { unique: true });
    await this.keys.createIndex({ partner_id: 1, created_at: 1 });
  }

  async createPartner(partner: Partner): Promise<void> {
    await mongoCall(STORE, () => this.partners.insertOne({ _id: partner.id, ...partner }));
  }

  async getPartner(id: string): Promise<Partner | null> {
    const doc = await mongoCall(STORE, () => this.partners.findOne({ _id: id }));
    return doc ? strip(doc) : null;
  }

  async listPartners(): Promise<Partner[]> {
    return (await this.partners.find().sort({ created_at: 1, _id: 1 }).toArray()).map(strip);
  }

  async createKey(key: ApiKeyRecord): Promise<void> {
    await mongoCall(STORE, () => this.keys.insertOne({ _id: key.id, ...key }));
  }

  async listKeys(partnerId: string): Promise<ApiKeyRecord[]> {
    return (await this.keys.find({ partner_id: partnerId }).sort({ created_at: 1, _id: 1 }).toArray()).map(strip);
  }

  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const doc = await mongoCall(STORE, () => this.keys.findOne({ key_hash: keyHash }));
    return doc ? strip(doc) : null;
  }

  async revokeKey(keyId: string, at: string): Promise<boolean> {
    return mongoCall(STORE, async () => {
      const found = await this.keys.findOne({ _id: keyId });
      if (!found) return false;
      await this.keys.updateOne({ _id: keyId, revoked_at: null }, { $set: { revoked_at: at } });
      return true;
    });
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    // The client is shared and closed by the composition root.
  }
}

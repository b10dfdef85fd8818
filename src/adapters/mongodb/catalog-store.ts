import type { Collection, Db } from 'mongodb';
import type { Catalog, Category, Offer, Store } from '../../domain/catalog/model.js';
import { parseCatalog } from '../../domain/catalog/validate.js';
import { serialiseCatalog, type CatalogStore } from '../../ports/catalog-store.js';
import { newId } from '../../shared/ids.js';

/**
 * Snapshots without transactions (mongo-java-server has none, and one 16 MB document would cap
 * the catalog size): a save writes a new snapshot (one document per store plus a head document)
 * and then flips the `current` pointer in one single-document update. Readers follow the
 * pointer, so they see the old catalog or the new one. Superseded snapshots are removed after a
 * grace period, so a reader that read the pointer just before a flip can still finish.
 */
interface PointerDoc {
  _id: 'current';
  snapshot_id: string;
  version: string;
}
interface HeadDoc {
  _id: string;
  version: string;
  label: string;
  categories: Category[];
  offers: Offer[];
  store_count: number;
  saved_at: Date;
}
interface StoreDoc {
  _id: string;
  snapshot_id: string;
  position: number;
  store: Store;
  saved_at: Date;
}

const INSERT_BATCH = 200;
const DEFAULT_GRACE_MS = 10 * 60_000;
const LOAD_ATTEMPTS = 3;

export class MongoCatalogStore implements CatalogStore {
  private readonly pointer: Collection<PointerDoc>;
  private readonly heads: Collection<HeadDoc>;
  private readonly stores: Collection<StoreDoc>;

  private readonly graceMs: number;

  /** graceMs: how long a superseded snapshot is kept for readers still on it. */
  constructor(db: Db, options: { graceMs?: number } = {}) {
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.pointer = db.collection<PointerDoc>('catalog_pointer');
    this.heads = db.collection<HeadDoc>('catalog_snapshots');
    this.stores = db.collection<StoreDoc>('catalog_snapshot_stores');
  }

  async init(): Promise<void> {
    await this.stores.createIndex({ snapshot_id: 1, position: 1 });
  }

  async load(): Promise<Catalog | null> {
    for (let attempt = 1; ; attempt++) {
      const pointer = await this.pointer.findOne({ _id: 'current' });
      if (!pointer) return null;
      const head = await this.heads.findOne({ _id: pointer.snapshot_id });
      const stores = await this.stores.find({ snapshot_id: pointer.snapshot_id }).sort({ position: 1 }).toArray();
      if (head && stores.length === head.store_count) {
        return parseCatalog({
          version: head.label,
          stores: stores.map((d) => d.store),
          categories: head.categories,
          offers: head.offers,
        });
      }
      // The snapshot vanished under us: only possible after two newer saves; read the pointer again.
      if (attempt >= LOAD_ATTEMPTS) throw new Error(`catalog snapshot ${pointer.snapshot_id} is incomplete`);
    }
  }

  async save(catalog: Catalog): Promise<string> {
    const { version } = serialiseCatalog(catalog);
    const snapshotId = newId('cat');
    const savedAt = new Date();
    for (let i = 0; i < catalog.stores.length; i += INSERT_BATCH) {
      const batch = catalog.stores.slice(i, i + INSERT_BATCH).map((store, k) => ({
        _id: `${snapshotId}:${i + k}`,
        snapshot_id: snapshotId,
        position: i + k,
        store,
        saved_at: savedAt,
      }));
      await this.stores.insertMany(batch, { ignoreUndefined: true });
    }
    await this.heads.insertOne(
      {
        _id: snapshotId,
        version,
        label: catalog.version,
        categories: catalog.categories,
        offers: catalog.offers,
        store_count: catalog.stores.length,
        saved_at: savedAt,
      },
      { ignoreUndefined: true },
    );
    const previous = await this.pointer.findOneAndUpdate(
      { _id: 'current' },
      { $set: { snapshot_id: snapshotId, version } },
      { upsert: true, returnDocument: 'before' },
    );
    await this.removeSuperseded([snapshotId, ...(previous ? [previous.snapshot_id] : [])], savedAt);
    return version;
  }

  async version(): Promise<string | null> {
    const pointer = await this.pointer.findOne({ _id: 'current' }, { projection: { version: 1 } });
    return pointer?.version ?? null;
  }

  async close(): Promise<void> {
    // The client is shared and closed by the composition root.
  }

  /** Keeps the current and previous snapshots, and anything younger than the grace period (a save in flight). */
  private async removeSuperseded(keep: string[], now: Date): Promise<void> {
    const before = new Date(now.getTime() - this.graceMs);
    await this.stores.deleteMany({ snapshot_id: { $nin: keep }, saved_at: { $lte: before } });
    await this.heads.deleteMany({ _id: { $nin: keep }, saved_at: { $lte: before } });
  }
}

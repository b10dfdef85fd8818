import { Long, MongoServerError, type AnyBulkWriteOperation, type Db, type Document, type Filter } from 'mongodb';
import type {
  FieldValue,
  IndexSpec,
  Query,
  ReadModelStore,
  Retention,
  StoredDocument,
} from '../../ports/read-model-store.js';
import { Claims, isDuplicateKey, updatesAreAtomic } from './claims.js';
import { mongoCall } from './storage-errors.js';

type Row = {
  _id: string;
  seq: number;
  versions: Record<string, number>;
  doc: Record<string, unknown>;
  /** The retention field of `doc` as a BSON date, for the TTL index and the purge (collections with a retention). */
  retention_date?: Date;
};
type CheckpointRow = { _id: string; position: Long | number };

const CHECKPOINTS = 'projection_checkpoints';
const STORE = 'read model store';
const RETENTION_INDEX = 'retention_date_ttl';
/** MongoDB's "NotImplemented": FerretDB's answer to `expireAfterSeconds`. */
const NOT_IMPLEMENTED = 238;

/**
 * Read models in MongoDB: one collection per read model (`rm_<name>`), the projection's document
 * under `doc`, and `seq` as the compare-and-set token. Uses only the portable subset that
 * mongo-java-server and FerretDB support too (no transactions, no pipeline updates, no
 * `arrayFilters`): see docs/testing.md. On a server whose filtered updates are not atomic
 * (FerretDB), every compare-and-set first takes a claim (see claims.ts).
 */
export class MongoReadModelStore implements ReadModelStore {
  private readonly retentions = new Map<string, Retention>();
  private readonly ttl = new Map<string, boolean>();
  private readonly claims: Claims;

  /** `atomicUpdates`: whether filtered updates are atomic on this server; asked of the server when left out. */
  constructor(
    private readonly db: Db,
    private readonly options: { atomicUpdates?: boolean; claimLeaseMs?: number } = {},
  ) {
    this.claims = new Claims(db, options.claimLeaseMs);
  }

  private rows(collection: string) {
    return this.db.collection<Row>(`rm_${collection}`);
  }

  /**
   * Indexes a read model's queries need, and its retention: `retention_date` (the retention field as
   * a BSON date) with a TTL index where the server has TTL indexes, a plain index where it does not
   * (FerretDB), for `purgeExpired`. Documents stored before the retention was declared get their date.
   */
  async ensureIndexes(
    collection: string,
    indexes: readonly IndexSpec[],
    options: { retention?: Retention } = {},
  ): Promise<void> {
    const { retention } = options;
    if (retention) this.retentions.set(collection, retention);
    for (const index of indexes) {
      const spec = Object.fromEntries(Object.entries(index).map(([f, d]) => [f === '_id' ? '_id' : `doc.${f}`, d]));
      await this.rows(collection).createIndex(spec);
    }
    if (!retention) return;
    const expireAfterSeconds = Math.ceil(retention.afterMs / 1000);
    try {
      await this.rows(collection).createIndex({ retention_date: 1 }, { name: RETENTION_INDEX, expireAfterSeconds });
      this.ttl.set(collection, true);
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === NOT_IMPLEMENTED)) throw err;
      await this.rows(collection).createIndex({ retention_date: 1 });
      this.ttl.set(collection, false);
    }
    await this.dateUndated(collection);
  }

  /** Whether the collection's retention has a TTL index (false: only `purgeExpired` removes documents). */
  hasTtlIndex(collection: string): boolean | undefined {
    return this.ttl.get(collection);
  }

  async purgeExpired(now: Date): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    for (const [collection, { afterMs }] of this.retentions) {
      const before = new Date(now.getTime() - afterMs);
      deleted[collection] = (
        await mongoCall(STORE, () => this.rows(collection).deleteMany({ retention_date: { $lt: before } }))
      ).deletedCount;
    }
    return deleted;
  }

  async get<D>(collection: string, id: string): Promise<StoredDocument<D> | null> {
    const row = await mongoCall(STORE, () => this.rows(collection).findOne({ _id: id }));
    return row ? toStored<D>(row) : null;
  }

  put<D>(collection: string, next: StoredDocument<D>, expectedSeq: number | null): Promise<boolean> {
    return mongoCall(STORE, () => this.write(collection, next, expectedSeq));
  }

  private async write<D>(collection: string, next: StoredDocument<D>, expectedSeq: number | null): Promise<boolean> {
    const row: Omit<Row, '_id'> = { seq: next.seq, versions: next.versions, doc: next.doc as Record<string, unknown> };
    const date = this.retentionDate(collection, row.doc);
    if (date) row.retention_date = date;
    if (expectedSeq === null) {
      try {
        await this.rows(collection).insertOne({ _id: next.id, ...row });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    }
    const update = async () =>
      (await this.rows(collection).updateOne({ _id: next.id, seq: expectedSeq }, { $set: row })).matchedCount === 1;
    if (await this.atomic()) return update();
    const claimed = await this.claims.tryWith(collection, JSON.stringify([collection, next.id, expectedSeq]), update);
    return claimed?.value ?? false;
  }

  async find<D>(collection: string, q: Query): Promise<Array<StoredDocument<D>>> {
    const asc = q.sort.direction === 'asc';
    const and: Filter<Row>[] = [whereFilter(q.where)];
    if (q.range) {
      const { field, ...bounds } = q.range;
      const ops = Object.fromEntries(Object.entries(bounds).map(([op, v]) => [`$${op}`, v]));
      and.push({ [`doc.${field}`]: ops });
    }
    if (q.after) and.push(afterFilter(`doc.${q.sort.field}`, asc, q.after));
    const dir = asc ? 1 : -1;
    const rows = await mongoCall(STORE, () =>
      this.rows(collection)
        .find({ $and: and })
        .sort({ [`doc.${q.sort.field}`]: dir, _id: dir })
        .limit(q.limit)
        .toArray(),
    );
    return rows.map((r) => toStored<D>(r));
  }

  async count(collection: string, where?: Record<string, FieldValue>): Promise<number> {
    return mongoCall(STORE, () => this.rows(collection).countDocuments(whereFilter(where)));
  }

  async saveCheckpoint(projection: string, position: bigint): Promise<void> {
    const checkpoints = this.db.collection<CheckpointRow>(CHECKPOINTS);
    const save = async () => {
      const write = () =>
        checkpoints.updateOne({ _id: projection }, { $max: { position: Long.fromBigInt(position) } }, { upsert: true });
      try {
        await write();
      } catch (err) {
        // Two concurrent upserts of one new _id: one inserts, the other may get E11000; then the document exists.
        if (!isDuplicateKey(err)) throw err;
        await write();
      }
    };
    await mongoCall(STORE, async () => {
      if (await this.atomic()) await save();
      else await this.claims.with(CHECKPOINTS, JSON.stringify([CHECKPOINTS, projection]), save);
    });
  }

  async checkpoint(projection: string): Promise<bigint> {
    const doc = await mongoCall(STORE, () =>
      this.db.collection<CheckpointRow>(CHECKPOINTS).findOne({ _id: projection }),
    );
    if (!doc) return 0n;
    return typeof doc.position === 'number' ? BigInt(doc.position) : doc.position.toBigInt();
  }

  async reset(projection: string, collection: string): Promise<void> {
    await mongoCall(STORE, async () => {
      // The checkpoint first: a reset cut short between the two then leaves documents to replay
      // over from the start (each skips what it has absorbed), never a checkpoint past lost ones.
      await this.db.collection<CheckpointRow>(CHECKPOINTS).deleteOne({ _id: projection });
      await this.rows(collection).deleteMany({});
      if (!(await this.atomic())) await this.claims.clear(collection);
    });
  }

  async all<D>(collection: string): Promise<Array<StoredDocument<D>>> {
    return (await mongoCall(STORE, () => this.rows(collection).find({}).sort({ _id: 1 }).toArray())).map((r) =>
      toStored<D>(r),
    );
  }

  async pageById<D>(collection: string, afterId: string | null, limit: number): Promise<Array<StoredDocument<D>>> {
    const filter: Filter<Row> = afterId === null ? {} : { _id: { $gt: afterId } };
    return (
      await mongoCall(STORE, () => this.rows(collection).find(filter).sort({ _id: 1 }).limit(limit).toArray())
    ).map((r) => toStored<D>(r));
  }

  async close(): Promise<void> {}

  private atomic(): Promise<boolean> {
    return this.options.atomicUpdates !== undefined
      ? Promise.resolve(this.options.atomicUpdates)
      : updatesAreAtomic(this.db);
  }

  private retentionDate(collection: string, doc: Record<string, unknown>): Date | undefined {
    const retention = this.retentions.get(collection);
    const value = retention ? doc[retention.field] : undefined;
    if (typeof value !== 'string') return undefined;
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }

  /** Gives `retention_date` to documents written before the retention was declared (a one-off after an upgrade). */
  private async dateUndated(collection: string): Promise<void> {
    const undated = this.rows(collection)
      .find({ retention_date: { $exists: false } })
      .project<Pick<Row, '_id' | 'seq' | 'doc'>>({ _id: 1, seq: 1, doc: 1 });
    let writes: AnyBulkWriteOperation<Row>[] = [];
    const flush = async () => {
      if (writes.length) await this.rows(collection).bulkWrite(writes, { ordered: false });
      writes = [];
    };
    for await (const { _id, seq, doc } of undated) {
      const date = this.retentionDate(collection, doc);
      // Guarded by seq: a document a projection rewrote meanwhile got its date from put.
      if (date) writes.push({ updateOne: { filter: { _id, seq }, update: { $set: { retention_date: date } } } });
      if (writes.length >= 500) await flush();
    }
    await flush();
  }
}

function whereFilter(where: Record<string, FieldValue> = {}): Filter<Row> {
  return Object.fromEntries(Object.entries(where).map(([f, v]) => [`doc.${f}`, v]));
}

/**
 * Strictly after (value, id) in the sort order, where a missing field and null sort lowest (as
 * MongoDB sorts them, and as the embedded store does): comparison operators never match null, so
 * the null side is spelled out.
 */
function afterFilter(field: string, asc: boolean, after: { value: FieldValue; id: string }): Filter<Row> {
  const { value, id } = after;
  const filter: Document =
    value === null
      ? asc
        ? { $or: [{ [field]: { $ne: null } }, { [field]: null, _id: { $gt: id } }] }
        : { [field]: null, _id: { $lt: id } }
      : asc
        ? { $or: [{ [field]: { $gt: value } }, { [field]: value, _id: { $gt: id } }] }
        : { $or: [{ [field]: { $lt: value } }, { [field]: null }, { [field]: value, _id: { $lt: id } }] };
  return filter;
}

function toStored<D>(row: Row): StoredDocument<D> {
  return { id: row._id, seq: row.seq, versions: row.versions, doc: row.doc as D };
}

import { Long, MongoServerError, type Db, type Document, type Filter } from 'mongodb';
import type { FieldValue, Query, ReadModelStore, StoredDocument } from '../../ports/read-model-store.js';

type Row = { _id: string; seq: number; versions: Record<string, number>; doc: Record<string, unknown> };

const DUPLICATE_KEY = 11000;

/**
 * Read models in MongoDB: one collection per read model (`rm_<name>`), the projection's document
 * under `doc`, and `seq` as the compare-and-set token. Uses only the portable subset that
 * mongo-java-server supports too (no transactions, no pipeline updates): see docs/testing.md.
 */
export class MongoReadModelStore implements ReadModelStore {
  constructor(private readonly db: Db) {}

  private rows(collection: string) {
    return this.db.collection<Row>(`rm_${collection}`);
  }

  /** Indexes a read model's queries need; created at start. */
  async ensureIndexes(collection: string, indexes: Array<Record<string, 1 | -1>>): Promise<void> {
    for (const index of indexes) {
      const spec = Object.fromEntries(Object.entries(index).map(([f, d]) => [f === '_id' ? '_id' : `doc.${f}`, d]));
      await this.rows(collection).createIndex(spec);
    }
  }

  async get<D>(collection: string, id: string): Promise<StoredDocument<D> | null> {
    const row = await this.rows(collection).findOne({ _id: id });
    return row ? toStored<D>(row) : null;
  }

  async put<D>(collection: string, next: StoredDocument<D>, expectedSeq: number | null): Promise<boolean> {
    const row = { seq: next.seq, versions: next.versions, doc: next.doc as Record<string, unknown> };
    if (expectedSeq === null) {
      try {
        await this.rows(collection).insertOne({ _id: next.id, ...row });
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    }
    const result = await this.rows(collection).updateOne({ _id: next.id, seq: expectedSeq }, { $set: row });
    return result.matchedCount === 1;
  }

  async find<D>(collection: string, q: Query): Promise<Array<StoredDocument<D>>> {
    const dir = q.sort.direction === 'asc' ? 1 : -1;
    const and: Filter<Row>[] = [whereFilter(q.where)];
    if (q.range) {
      const { field, ...bounds } = q.range;
      const ops = Object.fromEntries(Object.entries(bounds).map(([op, v]) => [`$${op}`, v]));
      and.push({ [`doc.${field}`]: ops } as Filter<Row>);
    }
    if (q.after) {
      const op = dir === 1 ? '$gt' : '$lt';
      const f = `doc.${q.sort.field}`;
      and.push({ $or: [{ [f]: { [op]: q.after.value } }, { [f]: q.after.value, _id: { [op]: q.after.id } }] } as Filter<Row>);
    }
    const rows = await this.rows(collection)
      .find({ $and: and })
      .sort({ [`doc.${q.sort.field}`]: dir, _id: dir })
      .limit(q.limit)
      .toArray();
    return rows.map((r) => toStored<D>(r));
  }

  async count(collection: string, where?: Record<string, FieldValue>): Promise<number> {
    return this.rows(collection).countDocuments(whereFilter(where));
  }

  async saveCheckpoint(projection: string, position: bigint): Promise<void> {
    await this.db
      .collection<{ _id: string; position: Long }>('projection_checkpoints')
      .updateOne({ _id: projection }, { $max: { position: Long.fromBigInt(position) } }, { upsert: true });
  }

  async checkpoint(projection: string): Promise<bigint> {
    const doc = await this.db.collection<{ _id: string; position: Long | number }>('projection_checkpoints').findOne({ _id: projection });
    if (!doc) return 0n;
    return typeof doc.position === 'number' ? BigInt(doc.position) : doc.position.toBigInt();
  }

  async reset(projection: string, collection: string): Promise<void> {
    await this.rows(collection).deleteMany({});
    await this.db.collection<{ _id: string }>('projection_checkpoints').deleteOne({ _id: projection });
  }

  async all<D>(collection: string): Promise<Array<StoredDocument<D>>> {
    return (await this.rows(collection).find({}).sort({ _id: 1 }).toArray()).map((r) => toStored<D>(r));
  }

  async close(): Promise<void> {}
}

function whereFilter(where: Record<string, FieldValue> = {}): Filter<Row> {
  return Object.fromEntries(Object.entries(where).map(([f, v]) => [`doc.${f}`, v])) as Document as Filter<Row>;
}

function toStored<D>(row: Row): StoredDocument<D> {
  return { id: row._id, seq: row.seq, versions: row.versions, doc: row.doc as D };
}

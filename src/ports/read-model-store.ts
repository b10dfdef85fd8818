/**
 * Where projections keep their documents and checkpoints. Two adapters: in-process memory
 * (embedded mode: rebuilt from the event log at start) and MongoDB. One contract suite
 * (test/contract/read-model-store.contract.ts) runs against both.
 *
 * Concurrency: every write is a compare-and-set on the document's `seq` (how many events it has
 * absorbed). Several processes may run the same projection against one MongoDB: a runner that
 * loses the race re-reads and re-applies, and `versions` (last revision applied per source
 * stream) makes a replayed event a no-op. Nothing is ever applied twice or lost.
 */

export interface StoredDocument<D = Record<string, unknown>> {
  id: string;
  /** Number of events absorbed; the compare-and-set token. */
  seq: number;
  /** Last revision applied, per source stream. */
  versions: Record<string, number>;
  doc: D;
}

/** A stored document serialised: id, seq, versions and doc as JSON, and the doc's indexed fields (see `indexes`). */
export type DocumentRow = [id: string, seq: number, versions: string, doc: string, fields: Record<string, unknown>];

export type FieldValue = string | number | boolean | null;

/** An index on top-level fields of `doc` (`_id`: the document's id), 1 ascending, -1 descending. */
export type IndexSpec = Record<string, 1 | -1>;

/**
 * How long a collection keeps its documents: a document whose `field` (an ISO 8601 UTC date-time,
 * as the service writes them) is more than `afterMs` before now is deleted.
 */
export interface Retention {
  field: string;
  afterMs: number;
}

export interface Query {
  /** Equality on top-level fields of `doc`. */
  where?: Record<string, FieldValue>;
  /** Inclusive/exclusive bounds on one top-level field (ISO strings compare as text). */
  range?: { field: string; gt?: FieldValue; gte?: FieldValue; lt?: FieldValue; lte?: FieldValue };
  /** Sort by a field then by id, both in this direction; a missing field and null sort lowest. */
  sort: { field: string; direction: 'asc' | 'desc' };
  /** Start strictly after this (field value, id) pair in sort order (cursor pagination); null sorts lowest. */
  after?: { value: FieldValue; id: string };
  limit: number;
}

export interface ReadModelStore {
  /**
   * Declares a collection's indexes (the fields its queries filter and sort on) and its retention;
   * called at start for every read model, before it is used, by every process. Idempotent. MongoDB
   * also keeps the retention field as a BSON date with a TTL index where the server has TTL indexes;
   * everywhere, `purgeExpired` deletes what the retention no longer keeps. (Both adapters have it;
   * optional for wrappers.)
   */
  ensureIndexes?(
    collection: string,
    indexes: readonly IndexSpec[],
    options?: { retention?: Retention },
  ): Promise<void> | void;
  /**
   * Deletes, in every collection declared with a retention, the documents older than `now` minus the
   * retention; returns how many per collection. Run periodically; harmless in several processes at
   * once. A rebuild from the log brings deleted documents back until the next purge. (Both adapters
   * have it; optional for wrappers.)
   */
  purgeExpired?(now: Date): Promise<Record<string, number>>;
  get<D>(collection: string, id: string): Promise<StoredDocument<D> | null>;
  /** Compare-and-set: writes when the stored seq equals `expectedSeq` (null: the document must not exist). */
  put<D>(collection: string, next: StoredDocument<D>, expectedSeq: number | null): Promise<boolean>;
  find<D>(collection: string, query: Query): Promise<Array<StoredDocument<D>>>;
  count(collection: string, where?: Record<string, FieldValue>): Promise<number>;
  /** Monotonic: a lower position than the stored one is ignored. */
  saveCheckpoint(projection: string, position: bigint): Promise<void>;
  checkpoint(projection: string): Promise<bigint>;
  /**
   * Drops a collection and its projection's checkpoint (rebuild from zero), the checkpoint first:
   * a reset cut short leaves documents to replay over, not a checkpoint past dropped ones (unless
   * another process saves its own in between).
   */
  reset(projection: string, collection: string): Promise<void>;
  /**
   * Embedded only: writes documents another thread projected, already serialised, as the newest
   * versions (no compare-and-set: that thread alone writes them during a catch-up shared with it).
   */
  importRows?(collection: string, rows: readonly DocumentRow[]): void;
  /** Every document of a collection, ordered by id (tests, small collections); audits page with `pageById`. */
  all<D>(collection: string): Promise<Array<StoredDocument<D>>>;
  /**
   * A page of a collection's documents in id order: the first `limit` with an id above `afterId`
   * (null: from the start). Audits read a whole collection this way, a page at a time.
   */
  pageById<D>(collection: string, afterId: string | null, limit: number): Promise<Array<StoredDocument<D>>>;
  close(): Promise<void>;
}

import type { FieldValue, Query, ReadModelStore, StoredDocument } from '../../ports/read-model-store.js';

/**
 * Embedded read models: in-process maps, rebuilt from the event log at every start (the log is the
 * durable record; docs/read-models.md has the rebuild figures: about 25 s per million events).
 */
export class MemoryReadModelStore implements ReadModelStore {
  private readonly collections = new Map<string, Map<string, StoredDocument<unknown>>>();
  private readonly checkpoints = new Map<string, bigint>();

  private collection(name: string): Map<string, StoredDocument<unknown>> {
    let c = this.collections.get(name);
    if (!c) this.collections.set(name, (c = new Map()));
    return c;
  }

  async get<D>(collection: string, id: string): Promise<StoredDocument<D> | null> {
    return (this.collection(collection).get(id) as StoredDocument<D> | undefined) ?? null;
  }

  async put<D>(collection: string, next: StoredDocument<D>, expectedSeq: number | null): Promise<boolean> {
    const c = this.collection(collection);
    const current = c.get(next.id);
    if ((current?.seq ?? null) !== expectedSeq) return false;
    c.set(next.id, next as StoredDocument<unknown>);
    return true;
  }

  async find<D>(collection: string, q: Query): Promise<Array<StoredDocument<D>>> {
    const dir = q.sort.direction === 'asc' ? 1 : -1;
    const key = (d: StoredDocument<unknown>) => field(d, q.sort.field);
    const out: Array<StoredDocument<D>> = [];
    for (const d of this.collection(collection).values()) {
      if (q.where && !Object.entries(q.where).every(([f, v]) => field(d, f) === v)) continue;
      if (q.range && !inRange(field(d, q.range.field), q.range)) continue;
      if (q.after && compare(key(d), d.id, q.after.value, q.after.id) * dir <= 0) continue;
      out.push(d as StoredDocument<D>);
    }
    out.sort((a, b) => compare(key(a), a.id, key(b), b.id) * dir);
    return out.slice(0, q.limit);
  }

  async count(collection: string, where: Record<string, FieldValue> = {}): Promise<number> {
    let n = 0;
    for (const d of this.collection(collection).values()) if (Object.entries(where).every(([f, v]) => field(d, f) === v)) n++;
    return n;
  }

  async saveCheckpoint(projection: string, position: bigint): Promise<void> {
    if (position > (this.checkpoints.get(projection) ?? 0n)) this.checkpoints.set(projection, position);
  }

  async checkpoint(projection: string): Promise<bigint> {
    return this.checkpoints.get(projection) ?? 0n;
  }

  async reset(projection: string, collection: string): Promise<void> {
    this.collections.delete(collection);
    this.checkpoints.delete(projection);
  }

  async all<D>(collection: string): Promise<Array<StoredDocument<D>>> {
    return [...this.collection(collection).values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) as Array<StoredDocument<D>>;
  }

  async close(): Promise<void> {}
}

const field = (d: StoredDocument<unknown>, name: string): FieldValue => ((d.doc as Record<string, unknown>)[name] ?? null) as FieldValue;

function cmp(a: FieldValue, b: FieldValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

function compare(av: FieldValue, aid: string, bv: FieldValue, bid: string): number {
  return cmp(av, bv) || cmp(aid, bid);
}

function inRange(v: FieldValue, r: NonNullable<Query['range']>): boolean {
  if (v === null) return false;
  if (r.gt !== undefined && !(cmp(v, r.gt) > 0)) return false;
  if (r.gte !== undefined && !(cmp(v, r.gte) >= 0)) return false;
  if (r.lt !== undefined && !(cmp(v, r.lt) < 0)) return false;
  if (r.lte !== undefined && !(cmp(v, r.lte) <= 0)) return false;
  return true;
}

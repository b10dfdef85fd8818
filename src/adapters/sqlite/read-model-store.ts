import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type {
  DocumentRow,
  FieldValue,
  IndexSpec,
  Query,
  ReadModelStore,
  Retention,
  StoredDocument,
} from '../../ports/read-model-store.js';
import {
  columnName,
  createTableSql,
  fieldSql,
  indexedFields,
  indexSql,
  querySql,
  sqlValue,
  tableName,
} from './read-model-sql.js';

type Row = { id: string; seq: number; versions: string; doc: string };

/** A collection's table: the fields copied into columns, and its hot statements. */
interface Table {
  columns: string[];
  columnSet: Set<string>;
  select: Database.Statement;
  upsert: Database.Statement;
}

/**
 * Parsed documents kept in the process: the recently touched ones, so a projection's next event rarely
 * parses (an order's next events come within milliseconds, auto-accept's included). 250 of about
 * 1.5 KB: 0.4 MB of heap; 1,000, 2,000 and 5,000 held 1.5, 3 and 7.6 MB, with the same CPU per order
 * within the noise (docs/operations.md, Memory).
 */
const CACHE_MAX = 250;
/**
 * SQLite's page cache for this database, in KiB (SQLite's default here is 16 MB). Pages beyond it are
 * read back from the temporary file, in the OS's cache: a rebuild of 1,000,000 events took as long
 * with 4 MB as with 16 MB, and resident memory after 100,000 orders is 12 to 15 MB lower.
 */
const PAGE_CACHE_KIB = 4000;
/**
 * Pending writes are committed together, this long after the first of them or when this many are
 * waiting. Not every turn: an order's next event usually comes within milliseconds (auto-accept), and
 * a document written twice in the window is serialised and stored once. Reads never wait for it:
 * every query commits the pending writes first.
 */
const FLUSH_AFTER_MS = 50;
const FLUSH_AT = 1_000;

/**
 * Embedded read models: in-process, rebuilt from the event log at every start (DESIGN.md), held in
 * a private temporary SQLite database rather than in the JavaScript heap, so memory stays bounded
 * however many orders the log holds (SQLite keeps a page cache and spills the rest to a deleted
 * file in its temporary directory: SQLITE_TMPDIR, TMPDIR or /var/tmp).
 *
 * One process owns the database, so compare-and-set is decided here, against the newest version
 * (pending, cached or stored). Writes are batched into one transaction; every query commits the
 * pending ones first, so a read sees every write made before it.
 */
export class SqliteReadModelStore implements ReadModelStore {
  private readonly db: Database.Database;
  private readonly cache = new LRUCache<string, StoredDocument<unknown>>({ max: CACHE_MAX });
  private readonly dirty = new Map<string, { collection: string; doc: StoredDocument<unknown> }>();
  private readonly checkpoints = new Map<string, bigint>();
  private readonly statements = new Map<string, Database.Statement>();
  private readonly tables = new Map<string, Table>();
  private readonly retentions = new Map<string, Retention>();
  private flushQueued = false;
  private closed = false;

  /** `file` defaults to '' (a private temporary database, deleted when closed); tests may name one. */
  constructor(file = '') {
    this.db = new Database(file);
    // Nothing here survives a restart (the log does), so no durability is bought.
    this.db.pragma('journal_mode = MEMORY');
    this.db.pragma('synchronous = OFF');
    this.db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  }

  /**
   * Columns and indexes for the fields a read model filters and sorts on (its `indexes`), and for its
   * retention field; call before use.
   */
  ensureIndexes(collection: string, indexes: readonly IndexSpec[], options: { retention?: Retention } = {}): void {
    const { retention } = options;
    const specs: IndexSpec[] = retention ? [...indexes, { [retention.field]: 1 }] : [...indexes];
    const fields = indexedFields(specs);
    const table = this.table(collection);
    const missing = fields.filter((f) => !table.columnSet.has(f));
    if (missing.length) {
      this.flush();
      for (const f of missing) {
        this.db.exec(`ALTER TABLE ${tableName(collection)} ADD COLUMN ${columnName(f)}`);
        this.db.exec(`UPDATE ${tableName(collection)} SET ${columnName(f)} = json_extract(doc, '$.${f}')`);
      }
      this.tables.delete(collection);
      this.statements.clear();
    }
    const columns = this.table(collection).columnSet;
    for (const spec of specs) this.db.exec(indexSql(collection, spec, columns));
    if (retention) this.retentions.set(collection, retention);
  }

  async purgeExpired(now: Date): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    if (this.closed) return deleted;
    this.flush();
    for (const [collection, { field, afterMs }] of this.retentions) {
      const before = new Date(now.getTime() - afterMs).toISOString();
      const name = tableName(collection);
      const expired = `${fieldSql(field, this.table(collection).columnSet)} < ?`;
      const ids = this.db.transaction(() => {
        const found = (
          this.statement(`SELECT id FROM ${name} WHERE ${expired}`).all(before) as Array<{ id: string }>
        ).map((r) => r.id);
        if (found.length) this.statement(`DELETE FROM ${name} WHERE ${expired}`).run(before);
        return found;
      })();
      for (const id of ids) this.cache.delete(key(collection, id));
      deleted[collection] = ids.length;
    }
    return deleted;
  }

  async get<D>(collection: string, id: string): Promise<StoredDocument<D> | null> {
    return this.current(collection, id) as StoredDocument<D> | null;
  }

  async put<D>(collection: string, next: StoredDocument<D>, expectedSeq: number | null): Promise<boolean> {
    if ((this.current(collection, next.id)?.seq ?? null) !== expectedSeq) return false;
    const k = key(collection, next.id);
    this.dirty.set(k, { collection, doc: next });
    this.cache.set(k, next);
    if (this.dirty.size >= FLUSH_AT) this.flush();
    else this.queueFlush();
    return true;
  }

  async find<D>(collection: string, q: Query): Promise<Array<StoredDocument<D>>> {
    this.flush();
    const { sql, params } = querySql(collection, this.table(collection).columnSet, q);
    return (this.statement(sql).all(...params) as Row[]).map((r) => this.parse(collection, r) as StoredDocument<D>);
  }

  async count(collection: string, where: Record<string, FieldValue> = {}): Promise<number> {
    this.flush();
    const { sql, params } = querySql(collection, this.table(collection).columnSet, { where, count: true });
    return (this.statement(sql).get(...params) as { n: number }).n;
  }

  async saveCheckpoint(projection: string, position: bigint): Promise<void> {
    if (position > (this.checkpoints.get(projection) ?? 0n)) this.checkpoints.set(projection, position);
  }

  async checkpoint(projection: string): Promise<bigint> {
    return this.checkpoints.get(projection) ?? 0n;
  }

  async reset(projection: string, collection: string): Promise<void> {
    this.checkpoints.delete(projection); // first, as the port asks
    const prefix = key(collection, '');
    for (const k of this.dirty.keys()) if (k.startsWith(prefix)) this.dirty.delete(k);
    for (const k of [...this.cache.keys()]) if (k.startsWith(prefix)) this.cache.delete(k);
    this.table(collection);
    this.statement(`DELETE FROM ${tableName(collection)}`).run();
  }

  importRows(collection: string, rows: readonly DocumentRow[]): void {
    const { upsert, columns } = this.table(collection);
    for (const [id] of rows) {
      this.dirty.delete(key(collection, id));
      this.cache.delete(key(collection, id));
    }
    this.db.transaction(() => {
      for (const [id, seq, versions, doc, fields] of rows) {
        let parsed: Record<string, unknown> | undefined;
        const value = (c: string) =>
          c in fields ? fields[c] : (parsed ??= JSON.parse(doc) as Record<string, unknown>)[c];
        upsert.run(id, seq, versions, doc, ...columns.map((c) => sqlValue(value(c))));
      }
    })();
  }

  async all<D>(collection: string): Promise<Array<StoredDocument<D>>> {
    this.flush();
    this.table(collection);
    const rows = this.statement(
      `SELECT id, seq, versions, doc FROM ${tableName(collection)} ORDER BY id`,
    ).all() as Row[];
    return rows.map((r) => this.parse(collection, r) as StoredDocument<D>);
  }

  async pageById<D>(collection: string, afterId: string | null, limit: number): Promise<Array<StoredDocument<D>>> {
    this.flush();
    this.table(collection);
    const rows = (
      afterId === null
        ? this.statement(`SELECT id, seq, versions, doc FROM ${tableName(collection)} ORDER BY id LIMIT ?`).all(limit)
        : this.statement(
            `SELECT id, seq, versions, doc FROM ${tableName(collection)} WHERE id > ? ORDER BY id LIMIT ?`,
          ).all(afterId, limit)
    ) as Row[];
    return rows.map((r) => this.parse(collection, r) as StoredDocument<D>);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.db.close();
  }

  /** The newest version of a document: a pending write, a cached one, or the stored row. */
  private current(collection: string, id: string): StoredDocument<unknown> | null {
    const k = key(collection, id);
    const pending = this.dirty.get(k);
    if (pending) return pending.doc;
    const cached = this.cache.get(k);
    if (cached) return cached;
    const row = this.table(collection).select.get(id) as Row | undefined;
    return row ? this.parse(collection, row) : null;
  }

  /** A stored row as a document, reusing the cached object when it is the same version. */
  private parse(collection: string, row: Row): StoredDocument<unknown> {
    const k = key(collection, row.id);
    const cached = this.cache.peek(k);
    if (cached?.seq === row.seq) return cached;
    const doc = {
      id: row.id,
      seq: row.seq,
      versions: JSON.parse(row.versions) as Record<string, number>,
      doc: JSON.parse(row.doc) as unknown,
    };
    this.cache.set(k, doc);
    return doc;
  }

  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setTimeout(() => {
      this.flushQueued = false;
      // A failure keeps the writes pending; the next read or write flushes again and reports it to its caller.
      try {
        this.flush();
      } catch {
        /* reported by the next flush */
      }
    }, FLUSH_AFTER_MS).unref();
  }

  /** Commits every pending write in one transaction. */
  private flush(): void {
    if (this.dirty.size === 0 || this.closed) return;
    const pending = [...this.dirty.values()];
    this.dirty.clear();
    try {
      this.db.transaction(() => {
        for (const { collection, doc } of pending) {
          const { upsert, columns } = this.table(collection);
          const fields = doc.doc as Record<string, unknown>;
          upsert.run(
            doc.id,
            doc.seq,
            JSON.stringify(doc.versions),
            JSON.stringify(doc.doc),
            ...columns.map((c) => sqlValue(fields[c])),
          );
        }
      })();
    } catch (err) {
      // Rolled back: the writes stay pending (unless a newer version of the document is already).
      for (const p of pending) {
        const k = key(p.collection, p.doc.id);
        if (!this.dirty.has(k)) this.dirty.set(k, p);
      }
      throw err;
    }
  }

  /** A collection's table, created on first use. */
  private table(collection: string): Table {
    let t = this.tables.get(collection);
    if (t) return t;
    this.db.exec(createTableSql(collection, []));
    const name = tableName(collection);
    const columns = (this.db.pragma(`table_info(${name})`) as Array<{ name: string }>)
      .map((c) => c.name)
      .filter((c) => c.startsWith('f_'))
      .map((c) => c.slice(2));
    const names = ['id', 'seq', 'versions', 'doc', ...columns.map(columnName)];
    const update = `ON CONFLICT (id) DO UPDATE SET ${names
      .slice(1)
      .map((n) => `${n} = excluded.${n}`)
      .join(', ')}`;
    t = {
      columns,
      columnSet: new Set(columns),
      select: this.db.prepare(`SELECT id, seq, versions, doc FROM ${name} WHERE id = ?`),
      upsert: this.db.prepare(
        `INSERT INTO ${name} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ${update}`,
      ),
    };
    this.tables.set(collection, t);
    return t;
  }

  private statement(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }
}

const key = (collection: string, id: string): string => `${collection}\u0000${id}`;

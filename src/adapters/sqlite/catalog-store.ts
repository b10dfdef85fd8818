import type Database from 'better-sqlite3';
import type { Catalog } from '../../domain/catalog/model.js';
import { parseCatalog } from '../../domain/catalog/validate.js';
import { serialiseCatalog, type CatalogStore } from '../../ports/catalog-store.js';
import { openSqlite } from './open.js';

/** One row holds the current catalog document; replacing it is a single-row upsert. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS catalog_current (
  slot INTEGER PRIMARY KEY CHECK (slot = 1),
  version TEXT NOT NULL,
  label TEXT NOT NULL,
  document TEXT NOT NULL,
  saved_at TEXT NOT NULL
);
`;

export class SqliteCatalogStore implements CatalogStore {
  private readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly stmts;

  /** Give a shared connection (closed by its owner) or a file path (opened and closed here). */
  constructor(dbOrFile: Database.Database | string) {
    this.ownsDb = typeof dbOrFile === 'string';
    this.db = typeof dbOrFile === 'string' ? openSqlite(dbOrFile) : dbOrFile;
    this.db.exec(SCHEMA);
    this.stmts = {
      upsert: this.db.prepare(
        `INSERT INTO catalog_current (slot, version, label, document, saved_at) VALUES (1, @version, @label, @document, @saved_at)
         ON CONFLICT (slot) DO UPDATE SET version = excluded.version, label = excluded.label,
           document = excluded.document, saved_at = excluded.saved_at`,
      ),
      document: this.db.prepare('SELECT document FROM catalog_current WHERE slot = 1').pluck(),
      version: this.db.prepare('SELECT version FROM catalog_current WHERE slot = 1').pluck(),
    };
  }

  async load(): Promise<Catalog | null> {
    const document = this.stmts.document.get() as string | undefined;
    return document === undefined ? null : parseCatalog(JSON.parse(document));
  }

  async save(catalog: Catalog): Promise<string> {
    const { json, version } = serialiseCatalog(catalog);
    // A single statement is atomic in SQLite; other processes see the old row or the new one.
    this.stmts.upsert.run({ version, label: catalog.version, document: json, saved_at: new Date().toISOString() });
    return version;
  }

  async version(): Promise<string | null> {
    return (this.stmts.version.get() as string | undefined) ?? null;
  }

  async close(): Promise<void> {
    if (this.ownsDb && this.db.open) this.db.close();
  }
}

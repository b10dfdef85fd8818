import type Database from 'better-sqlite3';
import type { ApiKeyRecord, Partner, PartnerStore } from '../../ports/partner-store.js';
import type { Scope } from '../../domain/scopes.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS partners (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL REFERENCES partners(id),
  environment TEXT NOT NULL CHECK (environment IN ('live', 'sandbox')),
  scopes TEXT NOT NULL,
  rate_limit_per_min INTEGER NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  hint TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS api_keys_partner ON api_keys(partner_id);
`;

interface KeyRow extends Omit<ApiKeyRecord, 'scopes'> {
  scopes: string;
}

const toKey = (row: KeyRow): ApiKeyRecord => ({ ...row, scopes: JSON.parse(row.scopes) as Scope[] });

export class SqlitePartnerStore implements PartnerStore {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.stmts = {
      insertPartner: db.prepare('INSERT INTO partners (id, name, created_at) VALUES (@id, @name, @created_at)'),
      getPartner: db.prepare('SELECT id, name, created_at FROM partners WHERE id = ?'),
      listPartners: db.prepare('SELECT id, name, created_at FROM partners ORDER BY created_at, id'),
      insertKey: db.prepare(
        `INSERT INTO api_keys (id, partner_id, environment, scopes, rate_limit_per_min, key_hash, hint, created_at, revoked_at)
         VALUES (@id, @partner_id, @environment, @scopes, @rate_limit_per_min, @key_hash, @hint, @created_at, @revoked_at)`,
      ),
      listKeys: db.prepare('SELECT * FROM api_keys WHERE partner_id = ? ORDER BY created_at, id'),
      findKey: db.prepare('SELECT * FROM api_keys WHERE key_hash = ?'),
      revokeKey: db.prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?'),
    };
  }

  async createPartner(partner: Partner): Promise<void> {
    this.stmts.insertPartner.run(partner);
  }

  async getPartner(id: string): Promise<Partner | null> {
    return (this.stmts.getPartner.get(id) as Partner | undefined) ?? null;
  }

  async listPartners(): Promise<Partner[]> {
    return this.stmts.listPartners.all() as Partner[];
  }

  async createKey(key: ApiKeyRecord): Promise<void> {
    this.stmts.insertKey.run({ ...key, scopes: JSON.stringify(key.scopes) });
  }

  async listKeys(partnerId: string): Promise<ApiKeyRecord[]> {
    return (this.stmts.listKeys.all(partnerId) as KeyRow[]).map(toKey);
  }

  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = this.stmts.findKey.get(keyHash) as KeyRow | undefined;
    return row ? toKey(row) : null;
  }

  async revokeKey(keyId: string, at: string): Promise<boolean> {
    return this.stmts.revokeKey.run(at, keyId).changes > 0;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    // The connection is shared and closed by its owner (the composition root).
  }
}

import type Database from 'better-sqlite3';
import type { Environment } from '../../domain/environment.js';
import type { WebhookEndpointRecord, WebhookEndpointStore } from '../../ports/webhook-endpoint-store.js';
import type { EventType } from '../../domain/webhook/event-types.js';
import { storageError } from './storage-errors.js';
import { extend } from '../../shared/objects.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  partner_id TEXT NOT NULL,
  environment TEXT NOT NULL CHECK (environment IN ('live', 'sandbox')),
  url TEXT NOT NULL,
  events TEXT,
  secret_box TEXT NOT NULL,
  secret_hint TEXT NOT NULL,
  previous_secret_box TEXT,
  previous_secret_expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (partner_id, environment)
);
`;

type Row = Omit<WebhookEndpointRecord, 'events'> & { events: string | null };

const COLUMNS =
  'partner_id, environment, url, events, secret_box, secret_hint, previous_secret_box, previous_secret_expires_at, created_at, updated_at, version';
const PARAMS = COLUMNS.split(', ')
  .map((c) => `@${c}`)
  .join(', ');

/** Embedded endpoints: one row per partner and environment in service.db. */
export class SqliteWebhookEndpointStore implements WebhookEndpointStore {
  private readonly stmts;

  constructor(db: Database.Database) {
    db.exec(SCHEMA);
    this.stmts = {
      get: db.prepare<[string, string], Row>(
        `SELECT ${COLUMNS} FROM webhook_endpoints WHERE partner_id = ? AND environment = ?`,
      ),
      insert: db.prepare(`INSERT OR IGNORE INTO webhook_endpoints (${COLUMNS}) VALUES (${PARAMS})`),
      update: db.prepare(
        `UPDATE webhook_endpoints SET url = @url, events = @events, secret_box = @secret_box, secret_hint = @secret_hint,
           previous_secret_box = @previous_secret_box, previous_secret_expires_at = @previous_secret_expires_at,
           created_at = @created_at, updated_at = @updated_at, version = @version
         WHERE partner_id = @partner_id AND environment = @environment AND version = @expected`,
      ),
      delete: db.prepare<[string, string, number]>(
        'DELETE FROM webhook_endpoints WHERE partner_id = ? AND environment = ? AND version = ?',
      ),
    };
  }

  async get(partnerId: string, environment: Environment): Promise<WebhookEndpointRecord | null> {
    const row = this.stmts.get.get(partnerId, environment);
    return row ? extend(row, { events: row.events === null ? null : (JSON.parse(row.events) as EventType[]) }) : null;
  }

  async save(record: WebhookEndpointRecord, expectedVersion: number | null): Promise<boolean> {
    const row = { ...record, events: record.events === null ? null : JSON.stringify(record.events) };
    try {
      const result =
        expectedVersion === null
          ? this.stmts.insert.run(row)
          : this.stmts.update.run({ ...row, expected: expectedVersion });
      return result.changes === 1;
    } catch (err) {
      throw storageError(err, 'service database');
    }
  }

  async delete(partnerId: string, environment: Environment, expectedVersion: number): Promise<boolean> {
    try {
      return this.stmts.delete.run(partnerId, environment, expectedVersion).changes === 1;
    } catch (err) {
      throw storageError(err, 'service database');
    }
  }
}

import type { Environment } from '../domain/environment.js';
import type { EventType } from '../domain/webhook/event-types.js';

/**
 * The one webhook endpoint a partner registers per environment. Two adapters: SQLite (service.db,
 * embedded) and MongoDB; test/contract/webhook-endpoint-store.contract.ts is their shared behaviour.
 * The signing secrets are stored sealed (src/webhooks/secret-box.ts); adapters never see them in clear.
 */
export interface WebhookEndpointRecord {
  partner_id: string;
  environment: Environment;
  url: string;
  /** The subscribed event types; null means every type, including ones added later. */
  events: EventType[] | null;
  /** The current signing secret, sealed. */
  secret_box: string;
  /** Last 4 characters of the current secret, to tell secrets apart. */
  secret_hint: string;
  /** The secret the last rotation replaced, sealed; it still signs until `previous_secret_expires_at`. */
  previous_secret_box: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
  /** Compare-and-set token: 1 when created, +1 per change. */
  version: number;
}

export interface WebhookEndpointStore {
  get(partnerId: string, environment: Environment): Promise<WebhookEndpointRecord | null>;
  /**
   * Compare-and-set: writes `record` when the stored version equals `expectedVersion` (null: no
   * endpoint may exist yet). False when another writer got there first; the caller re-reads.
   */
  save(record: WebhookEndpointRecord, expectedVersion: number | null): Promise<boolean>;
  /**
   * Compare-and-delete: removes the endpoint when the stored version equals `expectedVersion`.
   * False when there is none or another writer changed it first; the caller re-reads.
   */
  delete(partnerId: string, environment: Environment, expectedVersion: number): Promise<boolean>;
}

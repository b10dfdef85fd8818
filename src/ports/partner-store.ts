import type { Environment } from '../domain/environment.js';
import type { Scope } from '../domain/scopes.js';

export interface Partner {
  id: string;
  name: string;
  created_at: string;
}

/** A stored API key. The key itself is never stored: only its SHA-256 hash. */
export interface ApiKeyRecord {
  id: string;
  partner_id: string;
  environment: Environment;
  scopes: Scope[];
  rate_limit_per_min: number;
  key_hash: string;
  /** What `keys list` shows instead of the key, e.g. `svc_test_…a9Zq`. */
  hint: string;
  created_at: string;
  revoked_at: string | null;
}

export interface PartnerStore {
  createPartner(partner: Partner): Promise<void>;
  getPartner(id: string): Promise<Partner | null>;
  listPartners(): Promise<Partner[]>;
  createKey(key: ApiKeyRecord): Promise<void>;
  listKeys(partnerId: string): Promise<ApiKeyRecord[]>;
  findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Returns false when the key does not exist. Revoking twice keeps the first time. */
  revokeKey(keyId: string, at: string): Promise<boolean>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

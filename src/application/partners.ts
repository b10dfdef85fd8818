import type { Environment } from '../domain/environment.js';
import type { ApiKeyRecord, Partner, PartnerStore } from '../ports/partner-store.js';
import { ALL_SCOPES, type Scope } from '../domain/scopes.js';
import { newId, randomToken, sha256Hex } from '../shared/ids.js';
import type { Clock } from '../shared/clock.js';

export const KEY_PREFIX: Record<Environment, string> = { live: 'svc_live_', sandbox: 'svc_test_' };
/** 32 random bytes = 256 bits of entropy, so a plain SHA-256 of the key is a safe lookup hash. */
const KEY_BYTES = 32;

export function hashKey(key: string): string {
  return sha256Hex(key);
}

export function environmentOfKey(key: string): Environment | null {
  if (key.startsWith(KEY_PREFIX.sandbox)) return 'sandbox';
  if (key.startsWith(KEY_PREFIX.live)) return 'live';
  return null;
}

export interface IssuedKey {
  record: ApiKeyRecord;
  /** Shown once; only its hash is stored. */
  key: string;
}

export class PartnerAdmin {
  constructor(
    private readonly store: PartnerStore,
    private readonly clock: Clock,
    private readonly defaultRateLimit: number,
  ) {}

  async createPartner(input: { name: string; scopes?: Scope[]; rateLimitPerMin?: number }): Promise<{
    partner: Partner;
    live: IssuedKey;
    sandbox: IssuedKey;
  }> {
    const partner: Partner = { id: newId('ptr', 12), name: input.name, created_at: this.clock.now().toISOString() };
    await this.store.createPartner(partner);
    const live = await this.createKey({ ...input, partnerId: partner.id, environment: 'live' });
    const sandbox = await this.createKey({ ...input, partnerId: partner.id, environment: 'sandbox' });
    return { partner, live, sandbox };
  }

  async createKey(input: {
    partnerId: string;
    environment: Environment;
    scopes?: Scope[];
    rateLimitPerMin?: number;
  }): Promise<IssuedKey> {
    const partner = await this.store.getPartner(input.partnerId);
    if (!partner) throw new Error(`No partner with id ${input.partnerId}`);
    const key = KEY_PREFIX[input.environment] + randomToken(KEY_BYTES);
    const record: ApiKeyRecord = {
      id: newId('key', 12),
      partner_id: partner.id,
      environment: input.environment,
      scopes: [...new Set(input.scopes ?? ALL_SCOPES)],
      rate_limit_per_min: input.rateLimitPerMin ?? this.defaultRateLimit,
      key_hash: hashKey(key),
      hint: `${KEY_PREFIX[input.environment]}…${key.slice(-4)}`,
      created_at: this.clock.now().toISOString(),
      revoked_at: null,
    };
    await this.store.createKey(record);
    return { record, key };
  }

  listPartners(): Promise<Partner[]> {
    return this.store.listPartners();
  }

  listKeys(partnerId: string): Promise<ApiKeyRecord[]> {
    return this.store.listKeys(partnerId);
  }

  revokeKey(keyId: string): Promise<boolean> {
    return this.store.revokeKey(keyId, this.clock.now().toISOString());
  }
}

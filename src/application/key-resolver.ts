import type { ApiKeyRecord, Partner, PartnerStore } from '../ports/partner-store.js';
import { environmentOfKey, hashKey } from './partners.js';

export interface Principal {
  key: ApiKeyRecord;
  partner: Partner;
}

/**
 * Resolves a presented key to its partner. Answers are cached for at most `ttlMs` (default 1 s), so a
 * key created or revoked by the CLI takes effect within a second without a store round trip per request.
 */
export class KeyResolver {
  private readonly cache = new Map<string, { at: number; value: Principal | null }>();

  constructor(
    private readonly store: PartnerStore,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The answer for `key`: synchronously when a fresh cached answer exists (every request but one a
   * second per key), else a promise of the store's answer.
   */
  resolve(key: string): Principal | null | Promise<Principal | null> {
    if (!environmentOfKey(key)) return null;
    const hash = hashKey(key);
    const hit = this.cache.get(hash);
    const now = this.now();
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    return this.lookup(hash, now);
  }

  private async lookup(hash: string, now: number): Promise<Principal | null> {
    const value = await this.find(hash);
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(hash, { at: now, value });
    return value;
  }

  private async find(hash: string): Promise<Principal | null> {
    const key = await this.store.findKeyByHash(hash);
    if (!key || key.revoked_at) return null;
    const partner = await this.store.getPartner(key.partner_id);
    return partner ? { key, partner } : null;
  }
}

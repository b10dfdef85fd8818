import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, PartnerStore } from '../../src/ports/partner-store.js';

const key = (over: Partial<ApiKeyRecord>): ApiKeyRecord => ({
  id: 'key_1',
  partner_id: 'ptr_1',
  environment: 'live',
  scopes: ['catalog:read'],
  rate_limit_per_min: 600,
  key_hash: 'a'.repeat(64),
  hint: 'svc_live_…abcd',
  created_at: '2026-11-21T10:00:00.000Z',
  revoked_at: null,
  ...over,
});

/** One suite for every PartnerStore adapter. `open` gives a fresh, empty store. */
export function partnerStoreContract(name: string, open: () => Promise<PartnerStore>, skip = false): void {
  describe.skipIf(skip)(`PartnerStore contract: ${name}`, () => {
    it('stores partners and lists them in creation order', async () => {
      const s = await open();
      await s.createPartner({ id: 'ptr_b', name: 'B', created_at: '2026-11-21T10:00:01.000Z' });
      await s.createPartner({ id: 'ptr_a', name: 'A', created_at: '2026-11-21T10:00:00.000Z' });
      expect((await s.listPartners()).map((p) => p.id)).toEqual(['ptr_a', 'ptr_b']);
      expect(await s.getPartner('ptr_b')).toEqual({ id: 'ptr_b', name: 'B', created_at: '2026-11-21T10:00:01.000Z' });
      expect(await s.getPartner('nope')).toBeNull();
    });

    it('finds keys by hash, lists them per partner, and refuses a duplicate hash', async () => {
      const s = await open();
      await s.createPartner({ id: 'ptr_1', name: 'One', created_at: '2026-11-21T10:00:00.000Z' });
      const k = key({ scopes: ['catalog:read', 'orders:write'] });
      await s.createKey(k);
      await s.createKey(
        key({ id: 'key_2', key_hash: 'b'.repeat(64), environment: 'sandbox', created_at: '2026-11-21T10:00:01.000Z' }),
      );
      expect(await s.findKeyByHash('a'.repeat(64))).toEqual(k);
      expect(await s.findKeyByHash('c'.repeat(64))).toBeNull();
      expect((await s.listKeys('ptr_1')).map((x) => x.id)).toEqual(['key_1', 'key_2']);
      await expect(s.createKey(key({ id: 'key_3' }))).rejects.toThrow();
    });

    it('revokes a key once and keeps the first revocation time', async () => {
      const s = await open();
      await s.createPartner({ id: 'ptr_1', name: 'One', created_at: '2026-11-21T10:00:00.000Z' });
      await s.createKey(key({}));
      expect(await s.revokeKey('key_1', '2026-11-21T11:00:00.000Z')).toBe(true);
      expect(await s.revokeKey('key_1', '2026-11-21T12:00:00.000Z')).toBe(true);
      expect((await s.findKeyByHash('a'.repeat(64)))!.revoked_at).toBe('2026-11-21T11:00:00.000Z');
      expect(await s.revokeKey('key_missing', '2026-11-21T12:00:00.000Z')).toBe(false);
      await s.ping();
    });
  });
}

import { describe, expect, it } from 'vitest';
import type { WebhookEndpointRecord, WebhookEndpointStore } from '../../src/ports/webhook-endpoint-store.js';

const endpoint = (over: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord => ({
  partner_id: 'ptr_1',
  environment: 'sandbox',
  url: 'https://hooks.example.com/orders',
  events: null,
  secret_box: 'v1:iv:tag:ciphertext',
  secret_hint: 'abcd',
  previous_secret_box: null,
  previous_secret_expires_at: null,
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
  version: 1,
  ...over,
});

/** One suite for every WebhookEndpointStore adapter. `open` gives a fresh, empty store. */
export function webhookEndpointStoreContract(
  name: string,
  open: () => Promise<WebhookEndpointStore>,
  skip = false,
): void {
  describe.skipIf(skip)(`WebhookEndpointStore contract: ${name}`, () => {
    it('when nothing is registered, then get answers null', async () => {
      const s = await open();
      expect(await s.get('ptr_1', 'sandbox')).toBeNull();
    });

    it('when an endpoint is created, then it reads back exactly, events list or null', async () => {
      const s = await open();
      const all = endpoint();
      const some = endpoint({ environment: 'live', events: ['order.created', 'order.refunded'] });
      expect(await s.save(all, null)).toBe(true);
      expect(await s.save(some, null)).toBe(true);
      expect(await s.get('ptr_1', 'sandbox')).toEqual(all);
      expect(await s.get('ptr_1', 'live')).toEqual(some);
    });

    it('when a second creation races the first, then only the first is stored', async () => {
      const s = await open();
      expect(await s.save(endpoint(), null)).toBe(true);
      expect(await s.save(endpoint({ url: 'https://other.example.com/' }), null)).toBe(false);
      expect((await s.get('ptr_1', 'sandbox'))?.url).toBe('https://hooks.example.com/orders');
    });

    it('when updated with the stored version, then it changes; with a stale version, then it does not', async () => {
      const s = await open();
      await s.save(endpoint(), null);
      const rotated = endpoint({
        version: 2,
        secret_box: 'v1:new',
        secret_hint: 'wxyz',
        previous_secret_box: 'v1:iv:tag:ciphertext',
        previous_secret_expires_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-21T11:00:00.000Z',
      });
      expect(await s.save(rotated, 1)).toBe(true);
      expect(await s.get('ptr_1', 'sandbox')).toEqual(rotated);
      expect(await s.save(endpoint({ version: 2, url: 'https://late.example.com/' }), 1)).toBe(false);
      expect(await s.get('ptr_1', 'sandbox')).toEqual(rotated);
    });

    it('when several updates race on the stored version, round after round, then exactly one wins each round', async () => {
      const s = await open();
      await s.save(endpoint(), null);
      for (let version = 1; version <= 5; version++) {
        const urls = Array.from({ length: 6 }, (_, i) => `https://hooks.example.com/v${version + 1}/${i}`);
        const results = await Promise.all(urls.map((url) => s.save(endpoint({ version: version + 1, url }), version)));
        expect(results.filter(Boolean), `version ${version}`).toHaveLength(1);
        expect((await s.get('ptr_1', 'sandbox'))?.url).toBe(urls[results.indexOf(true)]);
      }
    });

    it('when an update names an endpoint that does not exist, then nothing is written', async () => {
      const s = await open();
      expect(await s.save(endpoint({ version: 2 }), 1)).toBe(false);
      expect(await s.get('ptr_1', 'sandbox')).toBeNull();
    });

    it('when deleted with the stored version, then it is gone and can be created again', async () => {
      const s = await open();
      await s.save(endpoint(), null);
      expect(await s.delete('ptr_1', 'sandbox', 1)).toBe(true);
      expect(await s.get('ptr_1', 'sandbox')).toBeNull();
      expect(await s.delete('ptr_1', 'sandbox', 1)).toBe(false);
      expect(await s.save(endpoint({ url: 'https://again.example.com/' }), null)).toBe(true);
      expect((await s.get('ptr_1', 'sandbox'))?.url).toBe('https://again.example.com/');
    });

    it('when a delete names a stale version, then the endpoint stays', async () => {
      const s = await open();
      await s.save(endpoint(), null);
      await s.save(endpoint({ version: 2, url: 'https://moved.example.com/' }), 1);
      expect(await s.delete('ptr_1', 'sandbox', 1)).toBe(false);
      expect((await s.get('ptr_1', 'sandbox'))?.url).toBe('https://moved.example.com/');
    });

    it('when a delete races an update of the same version, then exactly one of them wins', async () => {
      const s = await open();
      for (let round = 0; round < 5; round++) {
        await s.save(endpoint(), null);
        const [deleted, updated] = await Promise.all([
          s.delete('ptr_1', 'sandbox', 1),
          s.save(endpoint({ version: 2, url: 'https://moved.example.com/' }), 1),
        ]);
        expect([deleted, updated].filter(Boolean), `round ${round}`).toHaveLength(1);
        const stored = await s.get('ptr_1', 'sandbox');
        if (deleted) expect(stored).toBeNull();
        else expect(stored?.url).toBe('https://moved.example.com/');
        if (stored) await s.delete('ptr_1', 'sandbox', stored.version);
      }
    });

    it('when one environment is deleted, then the other and other partners stay', async () => {
      const s = await open();
      await s.save(endpoint(), null);
      await s.save(endpoint({ environment: 'live' }), null);
      await s.save(endpoint({ partner_id: 'ptr_2' }), null);
      expect(await s.delete('ptr_1', 'sandbox', 1)).toBe(true);
      expect(await s.get('ptr_1', 'live')).not.toBeNull();
      expect(await s.get('ptr_2', 'sandbox')).not.toBeNull();
    });

    it('keeps partners and environments apart', async () => {
      const s = await open();
      await s.save(endpoint(), null);
      expect(await s.get('ptr_2', 'sandbox')).toBeNull();
      expect(await s.get('ptr_1', 'live')).toBeNull();
      expect(await s.save(endpoint({ partner_id: 'ptr_2', url: 'https://two.example.com/' }), null)).toBe(true);
      expect((await s.get('ptr_1', 'sandbox'))?.url).toBe('https://hooks.example.com/orders');
      expect((await s.get('ptr_2', 'sandbox'))?.url).toBe('https://two.example.com/');
    });
  });
}

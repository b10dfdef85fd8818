// A store's `status` and `accepting_orders` are one answer: over the demo catalog, at any clock
// time, a store listed by `status=open` (or busy) takes orders and a closed one refuses them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadDemoCatalog } from '../../src/catalog-data/demo.js';
import { CatalogIndex } from '../../src/domain/catalog/catalog-index.js';
import { storeStatus } from '../../src/domain/catalog/status.js';
import { isApiError } from '../../src/domain/errors.js';
import { priceOrder } from '../../src/domain/order/pricing.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261124), numRuns: 200 });

const catalog = loadDemoCatalog();
const index = new CatalogIndex(catalog);
const everyStore = { page: 1, limit: catalog.stores.length };

/** The code placement answers for an empty pickup basket at the store: only the store gate matters here. */
function placementGate(storeId: string, at: Date): string {
  try {
    priceOrder(index, { store_id: storeId, fulfilment: 'pickup', items: [], tip: 0 }, at);
    return 'accepted';
  } catch (err) {
    if (!isApiError(err)) throw err;
    return err.code === 'store_closed' ? 'store_closed' : 'accepted';
  }
}

// Instants from 2026 to 2028 at any minute: weekdays, nights, closure dates and DST changes alike.
const instant = fc
  .integer({ min: Date.parse('2026-01-01T00:00:00Z') / 60_000, max: Date.parse('2028-12-31T23:59:00Z') / 60_000 })
  .map((minute) => new Date(minute * 60_000));

describe('store status and accepting_orders over the demo catalog', () => {
  it('at any instant, accepting_orders is exactly "not closed" for every store', () => {
    fc.assert(
      fc.property(instant, (at) => {
        for (const store of catalog.stores) {
          const s = storeStatus(store, at);
          expect(s.accepting_orders, `${store.id} at ${at.toISOString()}`).toBe(s.status !== 'closed');
          expect(s.closed_reason === null, store.id).toBe(s.status !== 'closed');
        }
      }),
    );
  });

  it('at any instant, stores listed as open or busy take orders and stores listed as closed refuse them', () => {
    fc.assert(
      fc.property(instant, (at) => {
        for (const status of ['open', 'busy'] as const)
          for (const hit of index.listStores({ ...everyStore, status }, at).data)
            expect(placementGate(hit.store.id, at), `${hit.store.id} (${status}) at ${at.toISOString()}`).toBe(
              'accepted',
            );
        for (const hit of index.listStores({ ...everyStore, status: 'closed' }, at).data)
          expect(placementGate(hit.store.id, at), `${hit.store.id} at ${at.toISOString()}`).toBe('store_closed');
      }),
      { numRuns: 50 },
    );
  });

  it('dxb-karama-tea, whose orders are switched off, is closed (paused) at every hour, never listed as open', () => {
    for (let hour = 0; hour < 24 * 7; hour += 5) {
      const at = new Date(Date.parse('2026-11-23T00:00:00Z') + hour * 3_600_000);
      expect(index.status(index.requireStore('dxb-karama-tea'), at)).toMatchObject({
        status: 'closed',
        accepting_orders: false,
        closed_reason: 'paused',
        opens_at: null,
      });
      const open = index.listStores({ ...everyStore, status: 'open' }, at).data.map((h) => h.store.id);
      expect(open).not.toContain('dxb-karama-tea');
    }
  });
});

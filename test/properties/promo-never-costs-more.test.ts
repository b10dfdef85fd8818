// Entering a promo code never makes the customer pay more: over the demo catalog's codes and
// random baskets, an order with a valid code costs at most what it costs without one, and its
// discount is the better of the code's and the best automatic offer's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadDemoCatalog } from '../../src/catalog-data/demo.js';
import { CatalogIndex } from '../../src/domain/catalog/catalog-index.js';
import { isApiError } from '../../src/domain/errors.js';
import { priceOrder, type PricingRequest } from '../../src/domain/order/pricing.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261124), numRuns: 300 });

const catalog = loadDemoCatalog();
const index = new CatalogIndex(catalog);
const AT = new Date('2026-11-21T09:00:00Z');
const CODES = catalog.offers.flatMap((o) => (o.promo_code ? [o.promo_code] : []));
// Shawarma Al Reem (its own 20% offer and REEM5) and a point in its free-delivery band.
const REEM = { store_id: 'kw-shawarma-reem', location: { lat: 29.3349, lng: 48.0878 } };
const LINES = [
  { item_id: 'hummus' },
  { item_id: 'laban' },
  { item_id: 'fattoush' },
  { item_id: 'chicken-shawarma-wrap', modifier_ids: ['size-regular'] },
  { item_id: 'beef-shawarma-plate', modifier_ids: ['rice-white'] },
];

const basket = fc
  .uniqueArray(fc.constantFrom(...LINES), { minLength: 1, maxLength: LINES.length, selector: (l) => l.item_id })
  .chain((lines) =>
    fc.tuple(...lines.map((l) => fc.integer({ min: 1, max: 12 }).map((quantity) => ({ ...l, quantity })))),
  );

function price(req: PricingRequest) {
  try {
    return priceOrder(index, req, AT);
  } catch (err) {
    if (isApiError(err)) return err.code;
    throw err;
  }
}

describe('promo code and automatic offer', () => {
  it('a valid code never raises the total, and the discount is the larger of the two', () => {
    let compared = 0;
    fc.assert(
      fc.property(
        basket,
        fc.constantFrom(...CODES),
        fc.constantFrom('delivery' as const, 'pickup' as const),
        (items, code, fulfilment) => {
          const base = { ...REEM, fulfilment, items, tip: 0 };
          const without = price(base);
          const withCode = price({ ...base, promo_code: code });
          if (typeof without === 'string' || typeof withCode === 'string') return; // refused either way
          expect(withCode.pricing.total).toBeLessThanOrEqual(without.pricing.total);
          const check = index.validatePromo(code, REEM.store_id, withCode.pricing, AT);
          expect(check.valid).toBe(true);
          if (!check.valid) return;
          expect(withCode.pricing.discount).toBe(Math.max(check.discount, without.pricing.discount));
          compared++;
        },
      ),
    );
    // Most codes do not apply at this store; enough baskets must still have had a valid one.
    expect(compared).toBeGreaterThan(50);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadDemoCatalog } from '../../src/catalog-data/demo.js';
import { CatalogIndex } from '../../src/domain/catalog/catalog-index.js';
import type { Item, Store } from '../../src/domain/catalog/model.js';
import { ApiError } from '../../src/domain/errors.js';
import { CURRENCIES, decimalsOf, fromMajor, toMajor } from '../../src/domain/money.js';
import { priceOrder, type OrderLineRequest, type PricingRequest } from '../../src/domain/order/pricing.js';

// A fixed seed keeps CI deterministic; FC_SEED=<n> explores other inputs locally.
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261121), numRuns: 500 });

const catalog = loadDemoCatalog();
const index = new CatalogIndex(catalog);
// A Saturday noon in both cities: every demo store with 24/7 hours is open (Reem in KWD, Station in AED).
const AT = new Date('2026-11-21T09:00:00Z');
const open = catalog.stores.filter((s) => index.status(s, AT).accepting_orders);
const itemsOf = (s: Store): Item[] => s.menu.categories.flatMap((c) => c.items);

/** A line of the store's menu with a valid choice of options for every modifier group. */
function line(store: Store): fc.Arbitrary<OrderLineRequest> {
  const available = itemsOf(store).filter((i) => i.available);
  // Mostly available items: one unavailable line refuses the whole basket.
  const item = fc.oneof(
    { arbitrary: fc.constantFrom(...available), weight: 29 },
    { arbitrary: fc.constantFrom(...itemsOf(store)), weight: 1 },
  );
  return item.chain((item) =>
    fc
      .tuple(
        fc.integer({ min: 1, max: 99 }),
        ...item.modifier_groups.map((g) =>
          fc.shuffledSubarray(
            g.options.map((o) => o.id),
            { minLength: g.min_select, maxLength: Math.min(g.max_select ?? g.options.length, g.options.length) },
          ),
        ),
      )
      .map(([quantity, ...choices]) => ({ item_id: item.id, quantity, modifier_ids: choices.flat() })),
  );
}

const request: fc.Arbitrary<{ store: Store; req: PricingRequest }> = fc.constantFrom(...open).chain((store) =>
  fc
    .record({
      items: fc.array(line(store), { minLength: 1, maxLength: 50, size: 'max' }),
      fulfilment: fc.constantFrom('delivery' as const, 'pickup' as const),
      // Mostly within ~4 km of the store, sometimes up to ~16 km: inside and outside its zone and fee bands.
      offset: fc.oneof(
        {
          arbitrary: fc.record({
            lat: fc.double({ min: -0.04, max: 0.04, noNaN: true }),
            lng: fc.double({ min: -0.04, max: 0.04, noNaN: true }),
          }),
          weight: 3,
        },
        {
          arbitrary: fc.record({
            lat: fc.double({ min: -0.15, max: 0.15, noNaN: true }),
            lng: fc.double({ min: -0.15, max: 0.15, noNaN: true }),
          }),
          weight: 1,
        },
      ),
      tip: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_000_000 * 10 ** decimalsOf(store.currency) })),
      // Codes are mostly for other stores or out of date: give one to a third of the baskets.
      promo_code: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 2 },
        {
          arbitrary: fc.constantFrom(
            ...catalog.offers.flatMap((o) => (o.promo_code ? [o.promo_code, o.promo_code.toLowerCase()] : [])),
            'NOPE',
          ),
          weight: 1,
        },
      ),
    })
    .map(({ items, fulfilment, offset, tip, promo_code }) => ({
      store,
      req: {
        store_id: store.id,
        fulfilment,
        items,
        location: { lat: store.location.lat + offset.lat, lng: store.location.lng + offset.lng },
        tip,
        promo_code,
      },
    })),
);

// The refusals pricing may answer with; anything else (or a non-ApiError) is a bug.
const BUSINESS_REFUSALS = ['item_unavailable', 'out_of_zone', 'below_minimum_order', 'invalid_promo_code'];

describe('pricing over random baskets of the demo catalog', () => {
  it('covers both kinds of currency', () => {
    expect(new Set(open.map((s) => decimalsOf(s.currency)))).toEqual(new Set([2, 3]));
  });

  it('total = subtotal + delivery_fee + tip - discount, never negative, every amount an exact integer of minor units', () => {
    let priced = 0;
    fc.assert(
      fc.property(request, ({ store, req }) => {
        let result;
        try {
          result = priceOrder(index, req, AT);
        } catch (err) {
          expect(err).toBeInstanceOf(ApiError);
          expect(BUSINESS_REFUSALS).toContain((err as ApiError).code);
          return;
        }
        priced++;
        const p = result.pricing;
        for (const v of Object.values(p)) expect(Number.isSafeInteger(v), `${JSON.stringify(p)}`).toBe(true);
        expect(p.total).toBe(p.subtotal + p.delivery_fee + p.tip - p.discount);
        expect(p.total).toBeGreaterThanOrEqual(0);
        expect(p.discount).toBeGreaterThanOrEqual(0);
        expect(p.discount).toBeLessThanOrEqual(p.subtotal + p.delivery_fee);
        expect(p.tip).toBe(req.tip);
        if (req.fulfilment === 'pickup') expect(p.delivery_fee).toBe(0);
        expect(p.subtotal).toBe(result.lines.reduce((sum, l) => sum + l.line_total, 0));
        for (const l of result.lines) {
          expect(l.line_total).toBe((l.unit_price + l.options.reduce((s, o) => s + o.price, 0)) * l.quantity);
        }
        // What a client sees: major units with at most the currency's decimals, the same sum.
        const d = decimalsOf(store.currency);
        const major = Object.fromEntries(Object.entries(p).map(([k, v]) => [k, toMajor(v, store.currency)]));
        for (const v of Object.values(major)) expect(decimalsIn(v)).toBeLessThanOrEqual(d);
        const back = (k: string) => fromMajor(major[k]!, store.currency);
        expect(back('total')).toBe(back('subtotal') + back('delivery_fee') + back('tip') - back('discount'));
      }),
    );
    // Otherwise the property could pass by refusing everything.
    expect(priced).toBeGreaterThan(200);
  });
});

describe('pricing: a repeated option', () => {
  it('given an option twice on a line, when priced, then 400 names the repeat and the option, as the schema does', () => {
    const store = open.find((s) => itemsOf(s).some((i) => i.available && i.modifier_groups.length > 0))!;
    const item = itemsOf(store).find((i) => i.available && i.modifier_groups.length > 0)!;
    const option = item.modifier_groups[0]!.options[0]!.id;
    const req: PricingRequest = {
      store_id: store.id,
      fulfilment: 'pickup',
      items: [{ item_id: item.id, quantity: 1, modifier_ids: [option, option] }],
      tip: 0,
    };
    expect(() => priceOrder(index, req, AT)).toThrow(
      expect.objectContaining({
        code: 'validation_error',
        param: 'items[0].modifier_ids[1]',
        message: `items[0].modifier_ids[1] repeats option ${option}.`,
      }),
    );
  });
});

describe('money: toMajor / fromMajor', () => {
  const currency = fc.constantFrom(...CURRENCIES);
  // Every amount a double holds exactly once written with 3 decimals: up to 15 significant digits.
  const minor = fc.oneof(
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.integer({ min: -(10 ** 15) + 1, max: 10 ** 15 - 1 }),
  );

  it('round-trips exactly for 2- and 3-decimal currencies', () => {
    fc.assert(
      fc.property(minor, currency, (m, c) => {
        const major = toMajor(m, c);
        expect(decimalsIn(major)).toBeLessThanOrEqual(decimalsOf(c));
        expect(fromMajor(major, c)).toBe(m);
        expect(fromMajor(String(major), c)).toBe(m);
      }),
    );
  });

  it('fromMajor gives a safe integer or refuses (never rounds, never an unsafe number)', () => {
    const input = fc.oneof(
      fc.double({ noNaN: true }),
      fc.integer().map((n) => n / 1000),
      fc.constantFrom(0.1 + 0.2, 1.005, 1e21, 1e-7, -0, Number.MAX_SAFE_INTEGER / 1000, 1e20, Number.MAX_SAFE_INTEGER),
      fc.string({ maxLength: 30 }),
    );
    fc.assert(
      fc.property(input, currency, (value, c) => {
        let out: number;
        try {
          out = fromMajor(value, c);
        } catch (err) {
          expect(err).toBeInstanceOf(RangeError);
          return;
        }
        expect(Number.isSafeInteger(out), `fromMajor(${String(value)}, ${c}) = ${out}`).toBe(true);
        // Refusing rather than rounding: the value read back is exactly the decimal sent.
        const sent = Number(typeof value === 'string' ? value.trim() : value);
        expect(toMajor(out, c) === sent, `fromMajor(${String(value)}, ${c}) = ${out}`).toBe(true); // -0 and 0 alike
      }),
    );
  });
});

function decimalsIn(n: number): number {
  const text = String(n);
  expect(text).not.toMatch(/e/);
  return text.includes('.') ? text.split('.')[1]!.length : 0;
}

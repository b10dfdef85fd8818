import { describe, expect, it } from 'vitest';
import { CatalogIndex } from '../../src/domain/catalog/catalog-index.js';
import {
  activeOffers,
  bestAutomaticOffer,
  discountFor,
  isActive,
  promoKey,
  storeOffers,
  validatePromo,
} from '../../src/domain/catalog/offers.js';
import { makeCatalog, makeOffer, makeStore, north, SALMIYA } from './catalog-fixtures.js';

const AT = new Date('2026-11-23T09:00:00Z');
const reem = makeStore({ id: 'kw-reem', name: 'Shawarma Al Reem' });
const pharmacy = makeStore({ id: 'kw-pharmacy', name: 'Dawa Pharmacy', vertical: 'pharmacy' });
const dubai = makeStore({
  id: 'dxb-store',
  name: 'Dubai Store',
  currency: 'AED',
  time_zone: 'Asia/Dubai',
  address: { line1: 'Marina Walk', area: 'Dubai Marina', city: 'Dubai', country: 'AE' },
});

const OFFERS = [
  makeOffer({ id: 'welcome', promo_code: 'WELCOME10', percent_bp: 1000, min_subtotal: 3000, max_discount: 2000 }),
  makeOffer({
    id: 'old',
    promo_code: 'RAMADAN2020',
    starts_at: '2020-04-23T00:00:00Z',
    ends_at: '2020-05-23T00:00:00Z',
  }),
  makeOffer({ id: 'future', promo_code: 'FUTURE2099', starts_at: '2099-01-01T00:00:00Z' }),
  makeOffer({
    id: 'reem5',
    scope: 'store',
    store_id: 'kw-reem',
    kind: 'fixed',
    percent_bp: undefined,
    amount: 500,
    promo_code: 'REEM5',
  }),
  makeOffer({ id: 'pharma5', promo_code: 'PHARMA5', percent_bp: 500, currency: null, verticals: ['pharmacy'] }),
  makeOffer({ id: 'freedel', promo_code: 'FREEDEL', kind: 'free_delivery', percent_bp: undefined, currency: null }),
];
const byCode = new Map(OFFERS.filter((o) => o.promo_code).map((o) => [promoKey(o.promo_code!), o]));
const check = (code: string, store = reem, subtotal = 5000, delivery_fee = 500) =>
  validatePromo(byCode, code, store, { subtotal, delivery_fee }, AT);

describe('offer windows', () => {
  const offer = makeOffer({ starts_at: '2026-11-01T00:00:00Z', ends_at: '2026-12-01T00:00:00Z' });

  it('starts at starts_at (inclusive) and ends at ends_at (exclusive)', () => {
    expect(isActive(offer, new Date('2026-10-31T23:59:59.999Z'))).toBe(false);
    expect(isActive(offer, new Date('2026-11-01T00:00:00Z'))).toBe(true);
    expect(isActive(offer, new Date('2026-11-30T23:59:59.999Z'))).toBe(true);
    expect(isActive(offer, new Date('2026-12-01T00:00:00Z'))).toBe(false);
  });
});

describe('validatePromo', () => {
  it('gives each failure its own reason', () => {
    expect(check('NOPE')).toEqual({ valid: false, reason: 'unknown_code', offer: null });
    expect(check('FUTURE2099')).toMatchObject({ valid: false, reason: 'not_yet_valid' });
    expect(check('RAMADAN2020')).toMatchObject({ valid: false, reason: 'expired' });
    expect(check('REEM5', pharmacy)).toMatchObject({ valid: false, reason: 'wrong_store' });
    expect(check('PHARMA5', reem)).toMatchObject({ valid: false, reason: 'not_eligible' });
    expect(check('WELCOME10', dubai)).toMatchObject({ valid: false, reason: 'not_eligible' }); // a KWD offer in an AED store
    expect(check('WELCOME10', reem, 2999)).toMatchObject({ valid: false, reason: 'below_minimum' });
    expect(check('FREEDEL', reem, 5000, 0)).toMatchObject({ valid: false, reason: 'no_discount' });
  });

  it('accepts a valid code in any case, with spaces around it, and computes the discount', () => {
    expect(check('  welcome10 ', reem, 5000)).toMatchObject({ valid: true, discount: 500, applies_to: 'subtotal' });
    expect(check('REEM5', reem, 5000)).toMatchObject({ valid: true, discount: 500 });
    expect(check('PHARMA5', pharmacy, 1999)).toMatchObject({ valid: true, discount: 100 });
    expect(check('FREEDEL', dubai, 5000, 900)).toMatchObject({
      valid: true,
      discount: 900,
      applies_to: 'delivery_fee',
    });
  });

  it('caps a percent discount at max_discount', () => {
    expect(check('WELCOME10', reem, 50_000)).toMatchObject({ valid: true, discount: 2000 });
  });
});

describe('discountFor', () => {
  it('rounds percentages half up in minor units and never exceeds what it discounts', () => {
    expect(discountFor(makeOffer({ percent_bp: 1250 }), { subtotal: 1004, delivery_fee: 0 })).toBe(126); // 125.5 -> 126
    expect(
      discountFor(makeOffer({ kind: 'fixed', percent_bp: undefined, amount: 5000 }), {
        subtotal: 1200,
        delivery_fee: 0,
      }),
    ).toBe(1200);
    expect(
      discountFor(makeOffer({ kind: 'free_delivery', percent_bp: undefined, max_discount: 300 }), {
        subtotal: 1200,
        delivery_fee: 500,
      }),
    ).toBe(300);
  });

  it('is 0 below the minimum subtotal', () => {
    expect(discountFor(makeOffer({ min_subtotal: 5000 }), { subtotal: 4999, delivery_fee: 0 })).toBe(0);
  });
});

describe('automatic offers', () => {
  const offers = [
    makeOffer({ id: 'a-10pct', percent_bp: 1000 }),
    makeOffer({ id: 'b-fixed', kind: 'fixed', percent_bp: undefined, amount: 700, min_subtotal: 6000 }),
    makeOffer({ id: 'c-store-only', scope: 'store', store_id: 'kw-pharmacy', percent_bp: 5000 }),
    makeOffer({ id: 'd-code', promo_code: 'BIG', percent_bp: 9000 }),
    makeOffer({ id: 'e-expired', percent_bp: 9000, ends_at: '2021-01-01T00:00:00Z' }),
  ];

  it('the best automatic offer is the one worth most to this basket; codes and expired offers never apply', () => {
    expect(bestAutomaticOffer(offers, reem, { subtotal: 5000, delivery_fee: 0 }, AT)).toMatchObject({
      offer: { id: 'a-10pct' },
      discount: 500,
    });
    expect(bestAutomaticOffer(offers, reem, { subtotal: 6000, delivery_fee: 0 }, AT)).toMatchObject({
      offer: { id: 'b-fixed' },
      discount: 700,
    });
    expect(bestAutomaticOffer(offers, pharmacy, { subtotal: 6000, delivery_fee: 0 }, AT)).toMatchObject({
      offer: { id: 'c-store-only' },
      discount: 3000,
    });
    expect(bestAutomaticOffer([offers[3]!, offers[4]!], reem, { subtotal: 6000, delivery_fee: 0 }, AT)).toBeNull();
  });

  it("a store's offers are the live platform offers that include it plus its own", () => {
    expect(storeOffers(offers, reem, AT).map((o) => o.id)).toEqual(['a-10pct', 'b-fixed', 'd-code']);
    expect(storeOffers(offers, pharmacy, AT).map((o) => o.id)).toEqual([
      'a-10pct',
      'b-fixed',
      'c-store-only',
      'd-code',
    ]);
  });

  it('offers at a location are those redeemable at a store delivering there', () => {
    expect(activeOffers(offers, [reem], AT).map((o) => o.id)).toEqual(['a-10pct', 'b-fixed', 'd-code']);
    expect(activeOffers(offers, [], AT)).toEqual([]);
    expect(activeOffers(offers, null, AT)).toHaveLength(4);
  });
});

describe('CatalogIndex offers', () => {
  const near = makeStore({ id: 'near', location: SALMIYA });
  const far = makeStore({ id: 'far', location: north(SALMIYA, 30_000) });
  const index = new CatalogIndex(
    makeCatalog({
      stores: [near, far],
      offers: [
        makeOffer({ id: 'far-only', scope: 'store', store_id: 'far' }),
        makeOffer({ id: 'everywhere', promo_code: 'ALL10' }),
      ],
    }),
  );

  it('lists offers redeemable at a point and validates codes by store id', () => {
    expect(index.offers(AT, SALMIYA).map((o) => o.id)).toEqual(['everywhere']);
    expect(index.offers(AT).map((o) => o.id)).toEqual(['far-only', 'everywhere']);
    expect(index.validatePromo('all10', 'near', { subtotal: 1000, delivery_fee: 0 }, AT)).toMatchObject({
      valid: true,
      discount: 100,
    });
    expect(() => index.validatePromo('ALL10', 'nowhere', { subtotal: 1000, delivery_fee: 0 }, AT)).toThrow(
      expect.objectContaining({ code: 'store_not_found' }),
    );
  });
});

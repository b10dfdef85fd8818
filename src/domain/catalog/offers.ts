/**
 * Offers: which are live, where they apply, what they take off, and promo-code checks.
 * An offer is live from starts_at (inclusive) to ends_at (exclusive). All amounts are
 * integer minor units; percentages are basis points.
 */
import { percentOf } from '../money.js';
import type { Offer, Store } from './model.js';

export function isActive(offer: Pick<Offer, 'starts_at' | 'ends_at'>, at: Date): boolean {
  const t = at.getTime();
  return Date.parse(offer.starts_at) <= t && t < Date.parse(offer.ends_at);
}

/** Whether the offer's targeting (store, vertical, city, currency) includes the store. */
export function appliesToStore(offer: Offer, store: Store): boolean {
  if (offer.scope === 'store' && offer.store_id !== store.id) return false;
  return eligibleStore(offer, store);
}

function eligibleStore(offer: Offer, store: Store): boolean {
  if (offer.verticals && !offer.verticals.includes(store.vertical)) return false;
  if (offer.cities && !offer.cities.includes(store.address.city)) return false;
  return offer.currency === null || offer.currency === store.currency;
}

export interface Basket {
  /** Minor units, items and modifiers, before discounts. */
  subtotal: number;
  /** Minor units; 0 for pickup. */
  delivery_fee: number;
}

/** What the offer takes off this basket (0 below the minimum); never more than it discounts. */
export function discountFor(offer: Offer, basket: Basket): number {
  if (basket.subtotal < offer.min_subtotal) return 0;
  const cap = (n: number) => (offer.max_discount === null ? n : Math.min(n, offer.max_discount));
  switch (offer.kind) {
    case 'percent':
      return Math.min(cap(percentOf(basket.subtotal, offer.percent_bp ?? 0)), basket.subtotal);
    case 'fixed':
      return Math.min(cap(offer.amount ?? 0), basket.subtotal);
    case 'free_delivery':
      return cap(basket.delivery_fee);
  }
}

/** Which part of the bill a discount comes off. */
export function discountTarget(offer: Offer): 'subtotal' | 'delivery_fee' {
  return offer.kind === 'free_delivery' ? 'delivery_fee' : 'subtotal';
}

/** Live offers (automatic and coded) that apply to the store. */
export function storeOffers(offers: readonly Offer[], store: Store, at: Date): Offer[] {
  return offers.filter((o) => isActive(o, at) && appliesToStore(o, store));
}

/**
 * Live offers redeemable at a location: those applying to at least one of the stores that
 * deliver there. `reachable` null means no location was given: every live offer.
 */
export function activeOffers(offers: readonly Offer[], reachable: readonly Store[] | null, at: Date): Offer[] {
  return offers.filter((o) => isActive(o, at) && (reachable === null || reachable.some((s) => appliesToStore(o, s))));
}

export interface AppliedOffer {
  offer: Offer;
  discount: number;
  applies_to: 'subtotal' | 'delivery_fee';
}

/** The automatic (code-less) offer worth most to this basket; ties go to the lower offer id. */
export function bestAutomaticOffer(
  offers: readonly Offer[],
  store: Store,
  basket: Basket,
  at: Date,
): AppliedOffer | null {
  let best: AppliedOffer | null = null;
  for (const offer of storeOffers(offers, store, at)) {
    if (offer.promo_code !== null) continue;
    const discount = discountFor(offer, basket);
    if (discount <= 0) continue;
    if (!best || discount > best.discount || (discount === best.discount && offer.id < best.offer.id)) {
      best = { offer, discount, applies_to: discountTarget(offer) };
    }
  }
  return best;
}

export const PROMO_REJECTIONS = [
  'unknown_code',
  'not_yet_valid',
  'expired',
  'wrong_store',
  'not_eligible',
  'below_minimum',
  'no_discount',
] as const;
export type PromoRejection = (typeof PROMO_REJECTIONS)[number];

export type PromoValidation =
  ({ valid: true } & AppliedOffer) | { valid: false; reason: PromoRejection; offer: Offer | null };

/** Codes are matched without regard to case or surrounding spaces. */
export function promoKey(code: string): string {
  return code.trim().toUpperCase();
}

/**
 * Checks in this order, first failure wins: unknown_code, not_yet_valid, expired,
 * wrong_store (a store's own code used elsewhere), not_eligible (vertical, city or currency
 * excluded), below_minimum (subtotal under min_subtotal), no_discount (nothing to take off,
 * e.g. free delivery on a pickup order).
 */
export function validatePromo(
  byCode: ReadonlyMap<string, Offer>,
  code: string,
  store: Store,
  basket: Basket,
  at: Date,
): PromoValidation {
  const offer = byCode.get(promoKey(code));
  if (!offer) return { valid: false, reason: 'unknown_code', offer: null };
  const reject = (reason: PromoRejection): PromoValidation => ({ valid: false, reason, offer });
  if (at.getTime() < Date.parse(offer.starts_at)) return reject('not_yet_valid');
  if (at.getTime() >= Date.parse(offer.ends_at)) return reject('expired');
  if (offer.scope === 'store' && offer.store_id !== store.id) return reject('wrong_store');
  if (!eligibleStore(offer, store)) return reject('not_eligible');
  if (basket.subtotal < offer.min_subtotal) return reject('below_minimum');
  const discount = discountFor(offer, basket);
  if (discount <= 0) return reject('no_discount');
  return { valid: true, offer, discount, applies_to: discountTarget(offer) };
}

/** The discount an order gets, and the promo code's own check when one was entered. */
export interface OrderDiscount {
  /** The code's check; null when no code was entered. */
  promo: PromoValidation | null;
  /**
   * The offer the order gets: the code's or the best automatic offer, whichever takes more off
   * (a tie goes to the code the customer entered); null when neither takes anything off, or when
   * the entered code is not valid (the order is refused then).
   */
  applied: AppliedOffer | null;
}

/**
 * One discount per order: the better of the entered promo code and the best automatic offer, so
 * entering a code never makes the customer pay more. Promo validation and order placement both
 * answer from here, so they cannot disagree.
 */
export function orderDiscount(
  offers: readonly Offer[],
  byCode: ReadonlyMap<string, Offer>,
  code: string | undefined,
  store: Store,
  basket: Basket,
  at: Date,
): OrderDiscount {
  const automatic = bestAutomaticOffer(offers, store, basket, at);
  if (code === undefined) return { promo: null, applied: automatic };
  const promo = validatePromo(byCode, code, store, basket, at);
  if (!promo.valid) return { promo, applied: null };
  const coded: AppliedOffer = { offer: promo.offer, discount: promo.discount, applies_to: promo.applies_to };
  return { promo, applied: automatic && automatic.discount > coded.discount ? automatic : coded };
}

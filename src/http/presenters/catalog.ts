/**
 * Catalog records as partners see them (docs/catalog-api.md). Minor units become the currency's
 * decimal numbers here, through toMajor, and nowhere else.
 */
import type { z } from 'zod';
import { toMajor, type Currency } from '../../domain/money.js';
import { deliveryFee, estimatedMinutes, type DeliveryQuote } from '../../domain/catalog/geo.js';
import { localTime, WEEKDAYS, type Weekday } from '../../domain/catalog/local-time.js';
import type { Category, Item, MenuCategory, Offer, Point, Store } from '../../domain/catalog/model.js';
import { discountTarget, type OrderDiscount, type PromoValidation } from '../../domain/catalog/offers.js';
import type { StoreHit } from '../../domain/catalog/search.js';
import type { StoreStatus } from '../../domain/catalog/status.js';
import type {
  CategorySchema,
  DeliveryQuoteSchema,
  ItemSchema,
  MenuSchema,
  OfferSchema,
  PromoValidationSchema,
  StoreBriefSchema,
  StoreSchema,
} from '../schemas/catalog.js';
import { extend } from '../../shared/objects.js';

type StoreBrief = z.infer<typeof StoreBriefSchema>;

function briefFields(store: Store, status: StoreStatus) {
  return {
    id: store.id,
    object: 'store' as const,
    name: store.name,
    name_ar: store.name_ar,
    vertical: store.vertical,
    status: status.status,
    accepting_orders: status.accepting_orders,
    opens_at: status.opens_at,
    image_url: store.image_url,
    currency: store.currency,
    minimum_order: toMajor(store.minimum_order, store.currency),
    prep_time_min: store.prep_time_min,
    category_ids: store.category_ids,
  };
}

/** A store in lists; distance, fee and estimate only when the caller sent a point. */
export function toStoreBrief(hit: StoreHit): StoreBrief {
  const { store, status, distance_m } = hit;
  const brief: StoreBrief = extend(briefFields(store, status), {
    address: { area: store.address.area, city: store.address.city },
  });
  if (distance_m !== null) {
    brief.distance_m = distance_m;
    brief.delivery_fee = toMajor(deliveryFee(store, distance_m), store.currency);
    brief.estimated_minutes = estimatedMinutes(store, distance_m);
  }
  return brief;
}

type Span = { day: Weekday; open: string };
const byWeekdayThenOpen = (a: Span, b: Span) =>
  WEEKDAYS.indexOf(a.day) - WEEKDAYS.indexOf(b.day) || (a.open < b.open ? -1 : a.open > b.open ? 1 : 0);

/** The full record: weekly spans Monday first; closures before the store's local today are left out. */
export function toStore(store: Store, status: StoreStatus, at: Date): z.infer<typeof StoreSchema> {
  const today = localTime(at, store.time_zone).date;
  const zone = store.delivery_zone;
  return extend(briefFields(store, status), {
    description: store.description,
    description_ar: store.description_ar,
    closed_reason: status.closed_reason,
    busy: store.busy,
    snoozed_until: store.snoozed_until,
    location: store.location,
    address: store.address,
    opening_hours: {
      time_zone: store.time_zone,
      weekly: store.opening_hours.map((s) => ({ day: s.day, open: s.open, close: s.close })).sort(byWeekdayThenOpen),
      closures: store.closures.filter((c) => c.date >= today).map((c) => ({ date: c.date, reason: c.reason })),
    },
    delivery: {
      zone:
        zone.type === 'radius' ? { type: 'radius', radius_m: zone.radius_m } : { type: 'polygon', points: zone.points },
      fees: store.delivery_fee_rules.map((r) => ({ up_to_m: r.up_to_m, fee: toMajor(r.fee, store.currency) })),
    },
  });
}

export function toItem(item: Item, categoryId: string, currency: Currency): z.infer<typeof ItemSchema> {
  const money = (minor: number) => toMajor(minor, currency);
  return {
    id: item.id,
    object: 'item',
    category_id: categoryId,
    name: item.name,
    name_ar: item.name_ar,
    description: item.description,
    description_ar: item.description_ar,
    image_url: item.image_url,
    price: money(item.price),
    original_price: item.original_price === null ? null : money(item.original_price),
    currency,
    available: item.available,
    modifier_groups: item.modifier_groups.map((g) => ({
      id: g.id,
      name: g.name,
      name_ar: g.name_ar ?? null,
      required: g.required,
      min_select: g.min_select,
      max_select: g.max_select,
      options: g.options.map((o) => ({ id: o.id, name: o.name, name_ar: o.name_ar ?? null, price: money(o.price) })),
    })),
  };
}

export function toMenu(store: Store, status: StoreStatus): z.infer<typeof MenuSchema> {
  return {
    store: {
      id: store.id,
      name: store.name,
      name_ar: store.name_ar,
      status: status.status,
      accepting_orders: status.accepting_orders,
    },
    currency: store.currency,
    categories: store.menu.categories.map((c: MenuCategory) => ({
      id: c.id,
      name: c.name,
      name_ar: c.name_ar,
      items: c.items.map((item) => toItem(item, c.id, store.currency)),
    })),
  };
}

/** The quote's terms; the route adds the signed `id` and `expires_at` (src/application/orders/quotes.ts). */
export function toQuote(
  q: DeliveryQuote,
  location: Point,
): Omit<z.infer<typeof DeliveryQuoteSchema>, 'id' | 'expires_at'> {
  const money = (minor: number) => toMajor(minor, q.currency);
  return {
    object: 'delivery_quote',
    store_id: q.store_id,
    location: { lat: location.lat, lng: location.lng },
    in_zone: q.in_zone,
    distance_m: q.distance_m,
    delivery_fee: q.delivery_fee === null ? null : money(q.delivery_fee),
    currency: q.currency,
    minimum_order: money(q.minimum_order),
    estimated_minutes: q.estimated_minutes,
    store_status: q.store_status,
    accepting_orders: q.accepting_orders,
  };
}

export function toCategory(c: Category): z.infer<typeof CategorySchema> {
  return { id: c.id, object: 'category', name: c.name, name_ar: c.name_ar, image_url: c.image_url };
}

/** Percent is basis points / 100 (1250 -> 12.5): a rate, not money. */
export function toOffer(o: Offer): z.infer<typeof OfferSchema> {
  // An offer without a currency has no amounts (the catalog model guarantees it): they are all 0/null.
  const money = (minor: number) => (o.currency === null ? 0 : toMajor(minor, o.currency));
  return {
    id: o.id,
    object: 'offer',
    title: o.title,
    title_ar: o.title_ar,
    scope: o.scope,
    store_id: o.store_id ?? null,
    kind: o.kind,
    percent: o.percent_bp === undefined ? null : o.percent_bp / 100,
    amount: o.amount === undefined ? null : money(o.amount),
    currency: o.currency,
    min_subtotal: money(o.min_subtotal),
    max_discount: o.max_discount === null ? null : money(o.max_discount),
    applies_to: discountTarget(o),
    requires_code: o.promo_code !== null,
    promo_code: o.promo_code,
    verticals: o.verticals ?? null,
    cities: o.cities ?? null,
    starts_at: o.starts_at,
    ends_at: o.ends_at,
  };
}

export interface PromoInput {
  code: string;
  store: Store;
  /** Minor units of the store's currency. */
  subtotal: number;
  delivery_fee: number;
}

export function toPromoValidation(input: PromoInput, choice: OrderDiscount): z.infer<typeof PromoValidationSchema> {
  const money = (minor: number) => toMajor(minor, input.store.currency);
  const result: PromoValidation = choice.promo!;
  const applied = choice.applied;
  return {
    object: 'promo_code_validation',
    code: result.offer?.promo_code ?? input.code,
    store_id: input.store.id,
    valid: result.valid,
    reason: result.valid ? null : result.reason,
    discount: result.valid ? money(result.discount) : 0,
    applies_to: result.valid ? result.applies_to : null,
    currency: input.store.currency,
    subtotal: money(input.subtotal),
    delivery_fee: money(input.delivery_fee),
    offer_id: result.offer?.id ?? null,
    offer: result.offer ? toOffer(result.offer) : null,
    applied: result.valid && applied?.offer.id === result.offer.id,
    order_discount: result.valid ? money(applied?.discount ?? 0) : null,
    order_offer_id: result.valid ? (applied?.offer.id ?? null) : null,
  };
}

/**
 * Prices an order request against the catalog: the service, never the client, computes every
 * amount. Pure: catalog index and instant in, priced lines and totals (minor units) out.
 *
 * line      = (item price + chosen options) x quantity
 * subtotal  = sum of lines
 * fee       = the store's fee rule for the distance, or the fee a held quote promised (0 for pickup)
 * discount  = the better of the promo code (when one is given) and the best automatic offer
 * total     = subtotal + fee + tip - discount   (never negative: discounts are capped by what they discount)
 */
import { ApiError } from '../errors.js';
import { formatMoney, sum, toMajor } from '../money.js';
import type { CatalogIndex } from '../catalog/catalog-index.js';
import type { Item, Point, Store } from '../catalog/model.js';
import { deliveryFee, distanceMetres, inDeliveryZone } from '../catalog/geo.js';
import type { PromoRejection } from '../catalog/offers.js';
import type { Fulfilment, OrderLine, Pricing } from './events.js';

/** A refused code's `reason` in words, for the message (the field keeps the code). */
const PROMO_REFUSED: Record<PromoRejection, string> = {
  unknown_code: 'there is no such code',
  not_yet_valid: 'it is not valid yet',
  expired: 'it has expired',
  wrong_store: "it is another store's code",
  not_eligible: "the store's vertical, city or currency is not covered",
  below_minimum: "the subtotal is below the code's minimum",
  no_discount: 'it takes nothing off this order',
};

export interface OrderLineRequest {
  item_id: string;
  quantity: number;
  modifier_ids?: string[] | undefined;
}

export interface PricingRequest {
  store_id: string;
  fulfilment: Fulfilment;
  items: OrderLineRequest[];
  /** Delivery location; required for delivery (checked at the edge). */
  location?: Point | undefined;
  /** Minor units. */
  tip: number;
  promo_code?: string | undefined;
  /** Minor units: the fee a delivery quote holds (the location is still checked against the zone). */
  quoted_delivery_fee?: number | undefined;
}

export interface PricedOrder {
  store: Store;
  lines: OrderLine[];
  pricing: Pricing;
  offer_id: string | null;
  promo_code: string | null;
}

export function priceOrder(catalog: CatalogIndex, req: PricingRequest, at: Date): PricedOrder {
  const store = catalog.store(req.store_id);
  if (!store) throw new ApiError('store_not_found', `No store with id ${req.store_id}.`, { param: 'store_id' });
  if (!catalog.status(store, at).accepting_orders) {
    throw new ApiError('store_closed', `${store.name} is not accepting orders right now.`, { param: 'store_id' });
  }
  const lines = req.items.map((line, i) => priceLine(catalog, store, line, `items[${i}]`));
  const subtotal = sum(lines.map((l) => l.line_total));
  const zoneFee = req.fulfilment === 'delivery' ? feeFor(store, req.location!) : 0;
  const delivery_fee = req.fulfilment === 'delivery' ? (req.quoted_delivery_fee ?? zoneFee) : 0;
  if (subtotal < store.minimum_order) {
    throw new ApiError(
      'below_minimum_order',
      `${store.name} needs a subtotal of at least ${formatMoney(store.minimum_order, store.currency)}; this order's is ${formatMoney(subtotal, store.currency)}.`,
      {
        param: 'items',
        // Major units, as the store's own `minimum_order` and every amount the API answers with.
        extra: { minimum_order: toMajor(store.minimum_order, store.currency), currency: store.currency },
      },
    );
  }
  const basket = { subtotal, delivery_fee };
  const { promo, applied } = catalog.orderDiscount(req.promo_code, store.id, basket, at);
  if (promo && !promo.valid) {
    throw new ApiError('invalid_promo_code', `The promo code cannot be applied: ${PROMO_REFUSED[promo.reason]}.`, {
      param: 'promo_code',
      extra: { reason: promo.reason },
    });
  }
  const discount = applied
    ? Math.min(applied.discount, applied.applies_to === 'delivery_fee' ? delivery_fee : subtotal)
    : 0;
  const total = subtotal + delivery_fee + req.tip - discount;
  return {
    store,
    lines,
    pricing: { subtotal, delivery_fee, tip: req.tip, discount, total },
    offer_id: applied?.offer.id ?? null,
    // The code of the offer applied: null when an automatic offer beat the entered code.
    promo_code: applied?.offer.promo_code ?? null,
  };
}

function feeFor(store: Store, location: Point): number {
  const distance = distanceMetres(store.location, location);
  if (!inDeliveryZone(store, location, distance)) {
    throw new ApiError('out_of_zone', `The address is ${distance} m from ${store.name}, outside its delivery area.`, {
      param: 'delivery_address.location',
    });
  }
  return deliveryFee(store, distance);
}

function priceLine(catalog: CatalogIndex, store: Store, line: OrderLineRequest, path: string): OrderLine {
  const item = itemOf(catalog, store, line, path);
  if (!item.available)
    throw new ApiError('item_unavailable', `${item.name} is not available right now.`, { param: `${path}.item_id` });
  return lineOf(item, line, path);
}

/**
 * A basket line priced as an order prices it, its options checked by the same rules; whether the
 * item is available now is left to the order (a promo code's basket: catalog-api.md).
 */
export function priceBasketLine(catalog: CatalogIndex, store: Store, line: OrderLineRequest, path: string): OrderLine {
  return lineOf(itemOf(catalog, store, line, path), line, path);
}

function itemOf(catalog: CatalogIndex, store: Store, line: OrderLineRequest, path: string): Item {
  const item = catalog.item(store.id, line.item_id);
  if (!item)
    throw new ApiError('item_not_found', `No item with id ${line.item_id} in store ${store.id}.`, {
      param: `${path}.item_id`,
    });
  return item;
}

function lineOf(item: Item, line: OrderLineRequest, path: string): OrderLine {
  const options = chooseOptions(item, line.modifier_ids ?? [], path);
  const eachWithOptions = item.price + sum(options.map((o) => o.price));
  return {
    item_id: item.id,
    name: item.name,
    quantity: line.quantity,
    unit_price: item.price,
    options,
    line_total: eachWithOptions * line.quantity,
  };
}

/** Resolves option ids against the item's groups and enforces each group's min/max. */
function chooseOptions(item: Item, ids: string[], path: string): OrderLine['options'] {
  const invalid = (param: string, message: string) => new ApiError('invalid_modifiers', message, { param });
  const chosen: OrderLine['options'] = [];
  const seen = new Set<string>();
  ids.forEach((id, j) => {
    const group = item.modifier_groups.find((g) => g.options.some((o) => o.id === id));
    if (!group) throw invalid(`${path}.modifier_ids[${j}]`, `${id} is not an option of ${item.name}.`);
    // The document states this one (uniqueItems), so it is a 400 like any other schema rule.
    if (seen.has(id)) {
      const param = `${path}.modifier_ids[${j}]`;
      throw new ApiError('validation_error', `${param} repeats option ${id}.`, { param });
    }
    seen.add(id);
    const option = group.options.find((o) => o.id === id)!;
    chosen.push({ id: option.id, group_id: group.id, name: option.name, price: option.price });
  });
  for (const group of item.modifier_groups) {
    const count = chosen.filter((o) => o.group_id === group.id).length;
    if (count < group.min_select) {
      throw invalid(`${path}.modifier_ids`, `${item.name}: choose at least ${group.min_select} of "${group.name}".`);
    }
    if (group.max_select !== null && count > group.max_select) {
      throw invalid(`${path}.modifier_ids`, `${item.name}: choose at most ${group.max_select} of "${group.name}".`);
    }
  }
  return chosen;
}

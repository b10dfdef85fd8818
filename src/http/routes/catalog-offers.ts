import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import { ApiError } from '../../domain/errors.js';
import { fromMajor, sum } from '../../domain/money.js';
import type { CatalogIndex } from '../../domain/catalog/catalog-index.js';
import { deliveryFee, distanceMetres } from '../../domain/catalog/geo.js';
import type { Point, Store } from '../../domain/catalog/model.js';
import { toOffer, toPromoValidation } from '../presenters/catalog.js';
import {
  NoQuery,
  OfferSchema,
  OffersQuery,
  PromoValidateBody,
  PromoValidationSchema,
  StoreParams,
} from '../schemas/catalog.js';
import type { CatalogDeps } from './catalog-deps.js';
import { priceBasketLine } from '../../domain/order/pricing.js';

const TAGS = ['Offers'];

type BasketLine = { item_id: string; quantity: number; modifier_ids?: string[] | undefined };

export function offerRoutes({ catalog, clock }: CatalogDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/offers',
      operationId: 'listOffers',
      summary: 'Active promotions, optionally only those redeemable at a location',
      description:
        'Active means starts_at <= now < ends_at. With lat and lng: only offers that apply to at least one store delivering to that point. Automatic offers (requires_code false) apply by themselves at checkout; coded ones show their public promo_code.',
      tags: TAGS,
      scope: 'offers:read',
      request: { query: OffersQuery },
      responses: { 200: { description: 'Active offers.', data: z.array(OfferSchema) } },
      handler: ({ query }) => {
        const point =
          query.lat !== undefined && query.lng !== undefined ? { lat: query.lat, lng: query.lng } : undefined;
        return { data: catalog.current().offers(clock.now(), point).slice(0, query.limit).map(toOffer) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/stores/:store_id/offers',
      operationId: 'listStoreOffers',
      summary: 'Active offers that apply at one store (its own and platform offers that include it)',
      tags: TAGS,
      scope: 'catalog:read',
      request: { params: StoreParams, query: NoQuery },
      responses: { 200: { description: "The store's active offers.", data: z.array(OfferSchema) } },
      errors: [404],
      handler: ({ params }) => ({ data: catalog.current().storeOffers(params.store_id, clock.now()).map(toOffer) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/promo-codes/validate',
      operationId: 'validatePromoCode',
      summary: 'Check a promo code against a store and a basket',
      description:
        "An unusable code is a 200 answer with valid false and a reason (unknown_code, not_yet_valid, expired, wrong_store, not_eligible, below_minimum, no_discount), checked in that order. A valid code and an automatic offer do not add up: an order gets the better of the two, so applied, order_discount and order_offer_id say what an order with this basket and code is charged. Send the basket as items (priced from the catalog) or as subtotal, exactly one of them (neither or both is a 400). Without location a delivery basket uses the store's nearest-band fee. Checked against the store (so not in the schema): a subtotal with more decimals than the store's currency has is a 422 invalid_amount naming subtotal; an item the store does not have is a 404 item_not_found naming items[i].item_id; options are checked as an order's are: an id that is not an option of its item is a 422 invalid_modifiers naming items[i].modifier_ids[j], options that miss a group's min_select or pass its max_select one naming items[i].modifier_ids.",
      tags: TAGS,
      scope: 'promo_codes:validate',
      request: { body: PromoValidateBody },
      responses: { 200: { description: 'Whether the code applies, and its discount.', data: PromoValidationSchema } },
      errors: [404, 422],
      handler: ({ body }) => {
        const index = catalog.current();
        const store = index.requireStore(body.store_id);
        const subtotal = body.items
          ? basketSubtotal(index, store, body.items)
          : subtotalFromMajor(body.subtotal ?? 0, store);
        const fee = body.fulfilment === 'pickup' ? 0 : deliveryFeeTo(store, body.location);
        // The same choice order placement makes: the code or a better automatic offer.
        const choice = index.orderDiscount(body.code, store.id, { subtotal, delivery_fee: fee }, clock.now());
        return { data: toPromoValidation({ code: body.code, store, subtotal, delivery_fee: fee }, choice) };
      },
    }),
  ];
}

/** The lines priced as an order prices them, from the catalog: the client never sends prices. */
function basketSubtotal(index: CatalogIndex, store: Store, lines: BasketLine[]): number {
  return sum(lines.map((line, i) => priceBasketLine(index, store, line, `items[${i}]`).line_total));
}

function subtotalFromMajor(amount: number, store: Store): number {
  try {
    return fromMajor(amount, store.currency);
  } catch (err) {
    throw new ApiError('invalid_amount', `subtotal${(err as Error).message}`, { param: 'subtotal' });
  }
}

/** The fee the order would be charged; without a point, the first (nearest) band's fee. */
function deliveryFeeTo(store: Store, location: Point | undefined): number {
  if (!location) return store.delivery_fee_rules[0]!.fee;
  return deliveryFee(store, distanceMetres(store.location, location));
}

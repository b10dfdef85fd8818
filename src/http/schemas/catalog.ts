/**
 * Wire schemas of the catalog endpoints: query/path/body parsers and the response shapes.
 * Money is a number in the currency's major unit (0.65 KWD, 12.5 AED); field names are in
 * docs/catalog-api.md. Query values arrive as strings; a repeated parameter arrives as an array
 * and fails its schema (400 naming it).
 */
import { z } from '../openapi/zod.js';
import { VERTICALS } from '../../domain/catalog/model.js';
import { PROMO_REJECTIONS } from '../../domain/catalog/offers.js';
import { CLOSED_REASONS } from '../../domain/catalog/status.js';
import { CURRENCIES } from '../../domain/money.js';
import { IsoTimestamp, modifierIds, promoCode, queryNumber, single } from './common.js';
import { lengthInCharacters, trimmedLengthPattern } from './text-patterns.js';

// ---- query and path parameters -------------------------------------------------------------

// Lengths are checked after trimming, with refine rather than .min/.max: the document then gives the
// trimmed length as a pattern (trimmedLengthPattern) instead of a maxLength on the raw text.
const queryString = (max: number) =>
  z
    .string(single('a string'))
    .trim()
    .refine(...lengthInCharacters(0, max))
    .openapi({ pattern: trimmedLengthPattern(0, max) });
const queryEnum = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, single(`one of ${values.join(', ')}`));

const Lat = () =>
  queryNumber(-90, 90).optional().openapi({ description: 'Latitude of the delivery point; send with lng.' });
const Lng = () =>
  queryNumber(-180, 180).optional().openapi({ description: 'Longitude of the delivery point; send with lat.' });

/**
 * lat and lng come together: one alone is a 400 naming the missing one. The document says so with
 * one exploded object parameter (../openapi/paired-query.ts), the same `lat=..&lng=..` on the wire.
 */
function pairedPoint(q: { lat?: number | undefined; lng?: number | undefined }, ctx: z.RefinementCtx): void {
  if (q.lat !== undefined && q.lng === undefined)
    ctx.addIssue({ code: 'custom', path: ['lng'], message: 'is required when lat is given' });
  if (q.lng !== undefined && q.lat === undefined)
    ctx.addIssue({ code: 'custom', path: ['lat'], message: 'is required when lng is given' });
}

export const StoreListQuery = z
  .object({
    lat: Lat(),
    lng: Lng(),
    q: queryString(80)
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .openapi({
        description:
          'Name match (English or Arabic, case-insensitive), at most 80 characters after trimming. Blank means no filter.',
      }),
    vertical: queryEnum(VERTICALS).optional(),
    status: queryEnum(['open', 'busy', 'closed'] as const)
      .optional()
      .openapi({ description: 'Status at the moment of the request.' }),
    page: queryNumber(1, 1_000_000, true).default(1).openapi({ description: '1-based page number.' }),
    limit: queryNumber(1, 100, true).default(20).openapi({ description: 'Stores per page.' }),
  })
  .strict()
  .superRefine(pairedPoint);

export const SearchQuery = z
  .object({
    q: z
      .string(single('a string'))
      .trim()
      .refine(...lengthInCharacters(2, 80))
      .openapi({
        description: 'Name match on stores and items, 2 to 80 characters after trimming.',
        pattern: trimmedLengthPattern(2, 80),
      }),
    lat: Lat(),
    lng: Lng(),
    limit: queryNumber(1, 50, true).default(10).openapi({ description: 'Results per type (stores, items).' }),
  })
  .strict()
  .superRefine(pairedPoint);

export const OffersQuery = z
  .object({
    lat: Lat(),
    lng: Lng(),
    limit: queryNumber(1, 100, true).default(20).openapi({ description: 'At most this many offers.' }),
  })
  .strict()
  .superRefine(pairedPoint);

export const QuoteQuery = z
  .object({
    lat: queryNumber(-90, 90).openapi({ description: 'Latitude of the delivery address.' }),
    lng: queryNumber(-180, 180).openapi({ description: 'Longitude of the delivery address.' }),
  })
  .strict();

export const NoQuery = z.object({}).strict();

const PathId = z.string().min(1).max(64);
export const StoreParams = z.object({ store_id: PathId });
export const ItemParams = z.object({ store_id: PathId, item_id: PathId });

// ---- responses -----------------------------------------------------------------------------

const Money = z
  .number()
  .openapi({ description: "Major units of `currency`, with at most the currency's decimals.", example: 0.65 });
const Currency = z.enum(CURRENCIES);
const StoreStatusValue = z.enum(['open', 'busy', 'closed']).openapi('StoreStatus');
const PointSchema = z.object({ lat: z.number(), lng: z.number() });

export const Pagination = z
  .object({
    page: z.int().openapi({ description: 'This page, 1-based.' }),
    limit: z.int().openapi({ description: 'Page size asked for.' }),
    total: z.int().openapi({ description: 'Matching stores over all pages.' }),
    has_more: z.boolean().openapi({ description: 'Whether a later page has stores.' }),
  })
  .openapi('Pagination');

export const StoreBriefSchema = z
  .object({
    id: z.string(),
    object: z.literal('store'),
    name: z.string(),
    name_ar: z.string().nullable(),
    vertical: z.enum(VERTICALS),
    status: StoreStatusValue,
    accepting_orders: z.boolean(),
    opens_at: IsoTimestamp.nullable().openapi({
      description: 'When closed: the next opening within a week, else null.',
    }),
    image_url: z.string(),
    address: z.object({ area: z.string(), city: z.string() }),
    currency: Currency,
    minimum_order: Money,
    prep_time_min: z.int(),
    category_ids: z.array(z.string()),
    distance_m: z.int().optional().openapi({ description: 'Only when lat and lng were sent: metres from that point.' }),
    delivery_fee: Money.optional().openapi({ description: 'Only when lat and lng were sent: the fee to that point.' }),
    estimated_minutes: z
      .int()
      .optional()
      .openapi({ description: 'Only when lat and lng were sent: preparation plus riding time.' }),
  })
  .openapi('StoreBrief');

const DeliveryZone = z.discriminatedUnion('type', [
  z.object({ type: z.literal('radius'), radius_m: z.int() }),
  z.object({ type: z.literal('polygon'), points: z.array(PointSchema) }),
]);

export const StoreSchema = z
  .object({
    ...StoreBriefSchema.omit({ distance_m: true, delivery_fee: true, estimated_minutes: true, address: true }).shape,
    description: z.string(),
    description_ar: z.string().nullable(),
    closed_reason: z.enum(CLOSED_REASONS).nullable(),
    busy: z.boolean(),
    snoozed_until: IsoTimestamp.nullable(),
    location: PointSchema,
    address: z.object({ line1: z.string(), area: z.string(), city: z.string(), country: z.string() }),
    opening_hours: z.object({
      time_zone: z.string().openapi({ example: 'Asia/Kuwait' }),
      weekly: z.array(
        z.object({
          day: z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']),
          open: z.string(),
          close: z.string(),
        }),
      ),
      closures: z.array(z.object({ date: z.string(), reason: z.string() })),
    }),
    delivery: z.object({
      zone: DeliveryZone,
      fees: z.array(z.object({ up_to_m: z.int(), fee: Money })),
    }),
  })
  .openapi('Store');

const OptionSchema = z.object({ id: z.string(), name: z.string(), name_ar: z.string().nullable(), price: Money });

export const ItemSchema = z
  .object({
    id: z.string(),
    object: z.literal('item'),
    category_id: z.string(),
    name: z.string(),
    name_ar: z.string().nullable(),
    description: z.string(),
    description_ar: z.string().nullable(),
    image_url: z.string(),
    price: Money,
    original_price: Money.nullable(),
    currency: Currency,
    available: z.boolean(),
    modifier_groups: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        name_ar: z.string().nullable(),
        required: z.boolean(),
        min_select: z.int(),
        max_select: z.int().nullable(),
        options: z.array(OptionSchema),
      }),
    ),
  })
  .openapi('Item');

export const MenuSchema = z
  .object({
    store: z.object({
      id: z.string(),
      name: z.string(),
      name_ar: z.string().nullable(),
      status: StoreStatusValue,
      accepting_orders: z.boolean(),
    }),
    currency: Currency,
    categories: z.array(
      z.object({ id: z.string(), name: z.string(), name_ar: z.string().nullable(), items: z.array(ItemSchema) }),
    ),
  })
  .openapi('Menu');

export const SearchResultSchema = z
  .object({
    stores: z.array(StoreBriefSchema),
    items: z.array(
      ItemSchema.extend({ store: z.object({ id: z.string(), name: z.string(), status: StoreStatusValue }) }).openapi(
        'SearchItem',
      ),
    ),
  })
  .openapi('SearchResult');

export const DeliveryQuoteSchema = z
  .object({
    object: z.literal('delivery_quote'),
    store_id: z.string(),
    location: PointSchema,
    in_zone: z.boolean(),
    distance_m: z.int(),
    delivery_fee: Money.nullable(),
    currency: Currency,
    minimum_order: Money,
    estimated_minutes: z.int().nullable(),
    store_status: StoreStatusValue,
    accepting_orders: z.boolean(),
    id: z.string().nullable().openapi({
      description:
        'Pass as `quote_id` when placing the order to be charged this fee (same store, partner and environment; within 100 m of `location`). Null when out of zone.',
      example: 'quo_AQAAAZ…',
    }),
    expires_at: IsoTimestamp.nullable().openapi({
      description: 'When the quote stops holding: 10 minutes after it was given. Null when out of zone.',
    }),
  })
  .openapi('DeliveryQuote');

export const CategorySchema = z
  .object({
    id: z.string(),
    object: z.literal('category'),
    name: z.string(),
    name_ar: z.string().nullable(),
    image_url: z.string(),
  })
  .openapi('Category');

export const OfferSchema = z
  .object({
    id: z.string(),
    object: z.literal('offer'),
    title: z.string(),
    title_ar: z.string().nullable(),
    scope: z.enum(['platform', 'store']),
    store_id: z.string().nullable(),
    kind: z.enum(['percent', 'fixed', 'free_delivery']),
    percent: z
      .number()
      .nullable()
      .openapi({ description: 'Percent offers: 10 means 10% off the subtotal; else null.' }),
    amount: Money.nullable().openapi({ description: 'Fixed offers: the amount off; else null.' }),
    currency: Currency.nullable(),
    min_subtotal: Money,
    max_discount: Money.nullable(),
    applies_to: z.enum(['subtotal', 'delivery_fee']),
    requires_code: z.boolean(),
    promo_code: z
      .string()
      .nullable()
      .openapi({ description: 'The public code to enter, or null for automatic offers.' }),
    verticals: z.array(z.enum(VERTICALS)).nullable(),
    cities: z.array(z.string()).nullable(),
    starts_at: IsoTimestamp,
    ends_at: IsoTimestamp,
  })
  .openapi('Offer');

const Location = z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) }).strict();

export const PromoValidateBody = z
  .object({
    code: promoCode('The promo code, 1 to 32 characters after trimming.'),
    store_id: z.string().min(1).max(64),
    subtotal: z.number().min(0).max(1_000_000).optional().openapi({
      description:
        "Basket subtotal in the store's currency, with at most the currency's decimals (more is a 422 invalid_amount naming subtotal: the store decides the currency); send it or items, not both.",
    }),
    items: z
      .array(
        z
          .object({
            item_id: z.string().min(1).max(64),
            quantity: z.int().min(1).max(99),
            modifier_ids: modifierIds(
              z.string().min(1).max(64),
              "Option ids from the item's modifier_groups[].options[].id, each once; checked as an order's are (422 invalid_modifiers).",
            ),
          })
          .strict(),
      )
      .min(1)
      .max(50)
      .optional()
      .openapi({ description: 'Basket lines, priced from the catalog; send them or subtotal, not both.' }),
    fulfilment: z.enum(['delivery', 'pickup']).default('delivery'),
    location: Location.optional().openapi({
      description: 'Delivery point, for the exact delivery fee (free-delivery codes).',
    }),
  })
  .strict()
  .superRefine((b, ctx) => {
    if ((b.subtotal === undefined) === (b.items === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [b.items === undefined ? 'subtotal' : 'items'],
        message:
          b.items === undefined
            ? 'is required when items is not sent (send exactly one of them)'
            : 'must not be sent together with subtotal (send exactly one of them)',
      });
    }
  })
  // Exactly one of subtotal and items (the superRefine above): neither or both is a 400.
  .openapi('PromoCodeValidationRequest', { oneOf: [{ required: ['subtotal'] }, { required: ['items'] }] });

export const PromoValidationSchema = z
  .object({
    object: z.literal('promo_code_validation'),
    code: z.string(),
    store_id: z.string(),
    valid: z.boolean(),
    reason: z.enum(PROMO_REJECTIONS).nullable(),
    discount: Money,
    applies_to: z.enum(['subtotal', 'delivery_fee']).nullable(),
    currency: Currency,
    subtotal: Money,
    delivery_fee: Money,
    offer_id: z.string().nullable(),
    // A union, not .nullable(): a nullable $ref is rendered as allOf, which refuses null.
    offer: z.union([OfferSchema, z.null()]),
    applied: z.boolean().openapi({
      description:
        "Whether an order with this basket and code gets the code's discount: false when the code is not valid, or when an automatic offer takes more off (the order then gets that offer instead).",
    }),
    order_discount: Money.nullable().openapi({
      description:
        'What an order with this basket and code gets off: the better of the code and the best automatic offer. Null when the code is not valid (the order would be refused with invalid_promo_code).',
    }),
    order_offer_id: z.string().nullable().openapi({
      description: "The offer behind order_discount (the code's offer or an automatic one); null when none applies.",
    }),
  })
  .openapi('PromoCodeValidation');

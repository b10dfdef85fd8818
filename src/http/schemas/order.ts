import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import phoneMetadata from 'libphonenumber-js/min/metadata';
import { z } from '../openapi/zod.js';
import {
  lengthInCharacters,
  trimmedLengthPattern,
  VISIBLE_CHARACTER,
  VISIBLE_CHARACTER_PATTERN,
} from './text-patterns.js';
import { PRINTABLE_PATTERN, PRINTABLE_RULE, PRINTABLE_TEXT } from '../../shared/unicode.js';
import { Environment, IsoTimestamp, modifierIds, promoCode } from './common.js';
import { ORDER_STATUSES, PAYMENT_STATUSES } from '../../domain/order/machine.js';
import { MAX_TIP } from '../../domain/money.js';
import type { PublicOrder } from '../../domain/order/public-order.js';

/**
 * Free text that is echoed back. Checked before trimming, so a trailing CR/LF is refused, not cut;
 * its length after trimming, so the document gives that length as a second pattern (a blank
 * string matches no minLength-only schema's intent). zod-to-openapi writes a flagged regex as
 * `source/u`, which no string matches, so both patterns are given as sources.
 */
const Text = (max: number) =>
  z
    .string()
    .regex(PRINTABLE_TEXT, PRINTABLE_RULE)
    .trim()
    .refine(...lengthInCharacters(1, max))
    .refine((text) => VISIBLE_CHARACTER.test(text), 'must contain a visible character')
    .openapi({
      pattern: PRINTABLE_PATTERN,
      allOf: [{ pattern: trimmedLengthPattern(1, max) }, { pattern: VISIBLE_CHARACTER_PATTERN }],
    });
/** The partner's reference, trimmed as other text is. */
export const Reference = Text(100);
/**
 * The list's filter by reference: trimmed as the body's, so a lookup by the value as sent finds the
 * order (the spec's lookup after an unconfirmed creation), but without the character rule, which
 * only compares: an order placed under an earlier, wider rule is still found.
 */
export const ReferenceFilter = z
  .string()
  .trim()
  .refine(...lengthInCharacters(1, 100))
  .openapi({ pattern: trimmedLengthPattern(1, 100) });
const Id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be an id (A-Z a-z 0-9 _ -)');

export const Location = z
  .object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) })
  .strict()
  .openapi('Location');

/**
 * The countries the service serves: those of the currencies it prices in (src/domain/money.ts,
 * USD and EUR aside). The document's phone pattern lists their numbers.
 */
export const PHONE_COUNTRIES: readonly CountryCode[] = ['KW', 'BH', 'OM', 'JO', 'AE', 'SA', 'QA', 'EG'];

/**
 * `^\+(?:965(?:…)|962(?:0)?(?:…)|…)$`: the numbers of PHONE_COUNTRIES that the service's check
 * accepts in compact form, from the same libphonenumber metadata the check uses. For a country whose
 * calling code is its own and whose metadata has no per-type patterns (each of these), a number is
 * valid exactly when its national number matches the country's national number pattern; a national
 * prefix (`0` in AE, SA, JO, EG) written after the calling code is dropped first, so it may be there.
 * `\d` is written `[0-9]`: the check reads ASCII digits (and Python's `\d` is any Unicode digit).
 */
export const PHONE_PATTERN = (() => {
  const alternatives = PHONE_COUNTRIES.map((country) => {
    const plan = phoneMetadata.countries[country] as unknown[] | undefined;
    const [callingCode, , nationalPattern, , , nationalPrefix] = plan ?? [];
    const shared = phoneMetadata.country_calling_codes[String(callingCode)] ?? [];
    const prefixOk =
      nationalPrefix === undefined || (typeof nationalPrefix === 'string' && /^[0-9]+$/.test(nationalPrefix));
    // Index 11: per-type patterns (fixed line, mobile, …); with them validity is no longer one pattern.
    if (
      typeof callingCode !== 'string' ||
      typeof nationalPattern !== 'string' ||
      !prefixOk ||
      shared.length !== 1 ||
      plan?.[11] !== undefined
    ) {
      throw new Error(`phone pattern: ${country} is not a single-country numbering plan without types`);
    }
    const prefix = typeof nationalPrefix === 'string' ? `(?:${nationalPrefix})?` : '';
    return `${callingCode}${prefix}(?:${nationalPattern.replace(/\\d/g, '[0-9]')})`;
  });
  return `^\\+(?:${alternatives.join('|')})$`;
})();

export const Phone = z
  .string()
  .max(32)
  .transform((v, ctx) => {
    // One parse gives both the check and the normalised number (the same parse isValidPhoneNumber makes).
    const phone = v.startsWith('+') ? parsePhoneNumberFromString(v, { extract: false }) : undefined;
    if (phone?.isValid()) return phone.number;
    ctx.issues.push({
      code: 'custom',
      message: 'must be a valid phone number in international format, e.g. +96550000000',
      input: v,
    });
    return z.NEVER;
  })
  .openapi({
    example: '+96550001234',
    pattern: PHONE_PATTERN,
    description:
      `A valid phone number in international format, answered normalised to E.164. The pattern gives the numbers ` +
      `of the countries the service serves (${PHONE_COUNTRIES.join(', ')}) exactly as the service checks them: ` +
      '`+`, the country calling code, the national prefix `0` where the country has one (dropped), and a national ' +
      "number of that country's numbering plan (libphonenumber metadata). The service also accepts, and normalises, " +
      'the same numbers written with spaces, dashes, dots, slashes or parentheses, in full-width or Arabic-Indic ' +
      'digits, or with an extension (dropped), and a valid number of any other country; anything else answers 400 ' +
      'validation_error "customer.phone must be a valid phone number in international format, e.g. +96550000000."',
  });

/** The tip maxima of docs/orders.md, as written in messages and the OpenAPI document: "50 KWD, 50 BHD, …". */
const MAX_TIPS = Object.entries(MAX_TIP)
  .map(([currency, max]) => `${max} ${currency}`)
  .join(', ');

export const PlaceOrderBody = z
  .object({
    store_id: Id,
    fulfilment: z.enum(['delivery', 'pickup']),
    items: z
      .array(
        z
          .object({
            item_id: Id,
            quantity: z.int().min(1).max(99),
            modifier_ids: modifierIds(
              Id,
              "Option ids from the item's modifier_groups[].options[].id, each once. Options that are not the item's, or that miss a group's min_select or pass its max_select, are a 422 invalid_modifiers.",
            ),
          })
          .strict(),
      )
      .min(1)
      .max(50),
    customer: z.object({ name: Text(100), phone: Phone }).strict(),
    delivery_address: z
      .object({
        line1: Text(200),
        floor: Text(20).optional(),
        apartment: Text(20).optional(),
        area: Text(100),
        location: Location,
      })
      .strict()
      .optional()
      .openapi({ description: 'Required for delivery; ignored for pickup.' }),
    payment_method: z.enum(['cash', 'card']),
    reference: Reference.optional().openapi({
      description:
        "The partner's own reference, echoed back without surrounding whitespace, and filterable in GET /orders.",
    }),
    tip: z
      .number()
      .min(0)
      .max(Math.max(...Object.values(MAX_TIP)), `must be at most the maximum of the store's currency: ${MAX_TIPS}`)
      .optional()
      .openapi({
        description: `Tip in the store's currency (e.g. 0.5 KWD), with at most the currency's decimals, at most ${MAX_TIPS}. Above the store's currency's maximum, or with more decimals than it has: 422 invalid_amount (the store decides the currency).`,
      }),
    promo_code: promoCode('A promo code, 1 to 32 characters after trimming.').optional(),
    quote_id: z
      .string()
      .min(1)
      .max(100)
      .regex(/^quo_[A-Za-z0-9_-]+$/, 'must be the id of a delivery quote (quo_…)')
      .optional()
      .openapi({
        description:
          'The `id` of a delivery quote (GET /v1/stores/{store_id}/delivery-quote) for this store, given to this partner in this environment less than 10 minutes ago, with `delivery_address.location` within 100 m of the quoted point: the order is charged the quoted delivery fee and starts from its estimate. Expired: 409 quote_expired; any other mismatch, or a pickup order: 422 quote_mismatch.',
      }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.fulfilment === 'delivery' && !body.delivery_address) {
      ctx.addIssue({ code: 'custom', path: ['delivery_address'], message: 'is required for delivery orders' });
    }
  })
  // The superRefine above, in the document: a pickup order, or one with a delivery_address.
  .openapi('PlaceOrderRequest', {
    anyOf: [{ properties: { fulfilment: { const: 'pickup' } } }, { required: ['delivery_address'] }],
    description:
      'A delivery order (`fulfilment: delivery`) needs `delivery_address` (otherwise 400 validation_error "delivery_address is required for delivery orders.").',
  });

export const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string({ error: 'the Idempotency-Key header is required' })
    .min(8, 'must be 8 to 64 characters')
    .max(64, 'must be 8 to 64 characters')
    // Header values are bytes: other text would reach the service as each client encodes it. Spaces
    // at either end are no part of a header value (HTTP drops them); between characters they are,
    // but not after a comma: ", " is how HTTP joins repeated lines (a proxy may merge two keys so).
    .regex(
      /^(?![\s\S]*, )[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/,
      'must be visible ASCII characters (spaces allowed between them, but not after a comma)',
    )
    .openapi({
      description:
        'Unique per order you intend to create; reuse it when retrying. A key sent again with the same body answers the order it placed (200, `Idempotent-Replayed: true`), with another body 409 idempotency_conflict: the example is one key, so change it for each new order.',
    }),
});

export const CancelOrderBody = z
  .object({ reason: Text(200).optional() })
  .strict()
  .openapi('CancelOrderRequest');

export const OrderSchema = z
  .object({
    id: z.string().openapi({ example: 'sbx_3kTq…' }),
    object: z.literal('order'),
    environment: Environment,
    reference: z.string().openapi({
      description: "The partner's reference as sent; an empty string when the order was placed without one.",
    }),
    order_number: z.string().openapi({ example: 'K7P-4QX' }),
    status: z.enum(ORDER_STATUSES),
    fulfilment: z.enum(['delivery', 'pickup']),
    store: z.object({ id: z.string(), name: z.string() }),
    pricing: z.object({
      subtotal: z.number(),
      delivery_fee: z.number(),
      tip: z.number(),
      discount: z.number(),
      total: z.number(),
      currency: z.string(),
    }),
    payment: z.object({
      method: z.enum(['cash', 'card']),
      status: z.enum(PAYMENT_STATUSES),
      refunded_amount: z.number(),
    }),
    lines: z.array(
      z.object({
        item_id: z.string(),
        name: z.string(),
        quantity: z.int(),
        unit_price: z.number(),
        options: z.array(z.object({ id: z.string(), group_id: z.string(), name: z.string(), price: z.number() })),
        line_total: z.number(),
      }),
    ),
    customer: z.object({ name: z.string(), phone: z.string() }),
    delivery_address: z.record(z.string(), z.unknown()).nullable(),
    promo_code: z.string().nullable(),
    offer_id: z.string().nullable(),
    quote_id: z.string().nullable().openapi({ description: 'The delivery quote the order was placed with.' }),
    estimated_minutes: z
      .int()
      .nullable()
      .openapi({ description: "The quote's estimated_minutes when placed with a quote_id; null otherwise." }),
    cancellation: z.object({ by: z.string(), reason: z.string().nullable() }).nullable(),
    created_at: IsoTimestamp,
    updated_at: IsoTimestamp,
  })
  .openapi('Order');

// Compile-time check that the schema documents exactly what toPublicOrder returns: each type fits the other.
const _orderSchemaIsPublicOrder: [z.infer<typeof OrderSchema>, PublicOrder] extends [
  PublicOrder,
  z.infer<typeof OrderSchema>,
]
  ? true
  : never = true;

/** `sbx_` (sandbox) or `ord_` (live) + 22 base62 characters: every order id (order-service.ts newOrderId). */
export const ORDER_ID_PATTERN = '^(?:sbx|ord)_[0-9A-Za-z]{22}$';

export const OrderIdParams = z.object({
  order_id: z.string().min(1).max(80).openapi({
    pattern: ORDER_ID_PATTERN,
    description: 'An order id (`sbx_` or `ord_` + 22 letters and digits); another id: 404 (over 80 characters: 400).',
  }),
});

export const PaymentLinkSchema = z
  .object({
    object: z.literal('payment_link'),
    id: z.string(),
    order_id: z.string(),
    url: z.string(),
    amount: z.number(),
    currency: z.string(),
    expires_at: IsoTimestamp,
  })
  .openapi('PaymentLink');

/** One action of the sandbox simulator: `action` and that action's own fields, nothing else. */
const SimulateAction = <A extends string, S extends z.ZodRawShape>(action: A, description: string, shape: S) =>
  z
    .object({ action: z.literal(action), ...shape })
    .strict()
    .openapi({ description });

export const SimulateBody = z
  .discriminatedUnion('action', [
    SimulateAction('payment_succeeded', "The card payment of the order's total succeeds (card orders).", {}),
    SimulateAction('payment_failed', 'The card payment fails; the order stays placed and can be paid later.', {
      reason: Text(200).optional().openapi({ description: 'Why the payment failed; `declined` when left out.' }),
    }),
    SimulateAction('restaurant_cancel', 'The restaurant cancels the order.', {
      reason: Text(200).openapi({ description: 'The reason the restaurant gives.' }),
    }),
    SimulateAction('refund', 'Support refunds a paid card order, in full or in part.', {
      amount: z.number().positive().optional().openapi({
        description: "Major units of the order's currency; the whole amount not yet refunded when left out.",
      }),
    }),
    SimulateAction(
      'rider_location',
      "The rider moves one step along the route from the store to the customer (the same step's point every time).",
      {},
    ),
  ])
  .openapi('SimulateRequest');

/**
 * Request and response examples of every operation, merged into the OpenAPI documents when they
 * are built (see `applyExamples`). One place for all of them, keyed by operationId.
 *
 * To add an entry for a new operation, add `myOperationId: { ... }` to OPERATION_EXAMPLES:
 * - `request`: what a partner sends. `params` (path), `query`, `headers` (besides Authorization)
 *   and `body` are sent as written. Use the demo catalog's real ids (docs/catalog.md) so the
 *   example works against a freshly started service with a sandbox key.
 * - `response`: the status and the body the service answers (the whole envelope, `{ data, ... }`),
 *   or the start of a text body for non-JSON answers.
 * - `uses`: path parameters that only exist after another example ran (an order id, a delivery
 *   id). The written value is the one shown in the document; the examples test runs the named
 *   operation's example first (with `with` over its body) and takes the value from its answer at
 *   `field` (a dot path; `match` picks a part of it).
 * - `prepare`: other examples that must run first for this one to succeed (e.g. a webhook
 *   endpoint before a test webhook can be sent).
 * test/http/openapi-examples.test.ts fails when an operation of a document has no entry, when an
 * example does not match the operation's schemas, or when the service answers another status.
 * To see what the service answers each example (to write or refresh a response body):
 *   EXAMPLES_CAPTURE=/tmp/answers.json npx vitest run test/http/openapi-examples.test.ts
 */

import type { EventType } from '../../domain/webhook/event-types.js';

export interface ExampleRequest {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface ExampleResponse {
  status: number;
  /** The JSON body as sent (the whole envelope), or the start of a text body. */
  body: unknown;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface ExampleDependency {
  /** operationId whose example produces the value. */
  operation: string;
  /** Dot path into that example's JSON answer, e.g. `data.id`. */
  field: string;
  /** A regular expression whose first group is the value, when the field holds more (a URL). */
  match?: string;
  /** Fields that replace those of that example's body (e.g. a card order instead of cash). */
  with?: Record<string, unknown>;
}

export interface OperationExample {
  summary?: string;
  request?: ExampleRequest;
  response: ExampleResponse;
  /** Path parameter -> where its real value comes from when the examples are run. */
  uses?: Record<string, ExampleDependency>;
  /** operationIds whose examples must run first (their answers are not used). */
  prepare?: string[];
}

const REEM = 'kw-shawarma-reem';
const NEAR_REEM = { lat: 29.3349, lng: 48.0878 };
const WEBHOOK_URL = 'https://hooks.example.com/orders';

/** The order a partner places first: Shawarma Al Reem (Kuwait City) is open around the clock. */
export const EXAMPLE_ORDER_BODY = {
  store_id: REEM,
  fulfilment: 'delivery',
  items: [
    { item_id: 'chicken-shawarma-wrap', quantity: 2, modifier_ids: ['size-large', 'extra-toum'] },
    { item_id: 'hummus', quantity: 1 },
  ],
  customer: { name: 'Fatima Al-Sabah', phone: '+96550001234' },
  delivery_address: {
    line1: 'Block 4, Street 12, House 7',
    floor: '2',
    apartment: '5',
    area: 'Salmiya',
    location: NEAR_REEM,
  },
  payment_method: 'cash',
  reference: 'partner-ref-1',
};

/** Two offers of the demo catalog near Shawarma Al Reem, as the offer lists answer them. */
const KW_FREE_DELIVERY_OFFER = {
  id: 'off-kw-free-delivery',
  object: 'offer',
  title: 'Free delivery on orders over 5 KWD',
  title_ar: 'توصيل مجاني للطلبات فوق ٥ د.ك',
  scope: 'platform',
  store_id: null,
  kind: 'free_delivery',
  percent: null,
  amount: null,
  currency: 'KWD',
  min_subtotal: 5,
  max_discount: null,
  applies_to: 'delivery_fee',
  requires_code: false,
  promo_code: null,
  verticals: null,
  cities: ['Kuwait City'],
  starts_at: '2020-01-01T00:00:00Z',
  ends_at: '2099-12-31T23:59:59Z',
};
const REEM_20_OFFER = {
  id: 'off-reem-20',
  object: 'offer',
  title: '20% off everything at Shawarma Al Reem (up to 1.5 KWD)',
  title_ar: 'خصم ٢٠٪ على كل شيء في شاورما الريم (حتى ١٫٥ د.ك)',
  scope: 'store',
  store_id: 'kw-shawarma-reem',
  kind: 'percent',
  percent: 20,
  amount: null,
  currency: 'KWD',
  min_subtotal: 0,
  max_discount: 1.5,
  applies_to: 'subtotal',
  requires_code: false,
  promo_code: null,
  verticals: null,
  cities: null,
  starts_at: '2020-01-01T00:00:00Z',
  ends_at: '2099-12-31T23:59:59Z',
};

const order = { order_id: { operation: 'createOrder', field: 'data.id' } };
const cardOrder = { order_id: { operation: 'createOrder', field: 'data.id', with: { payment_method: 'card' } } };
const delivery = { delivery_id: { operation: 'sendTestWebhook', field: 'data.id' } };
const session = {
  session_id: { operation: 'createPaymentLink', field: 'data.url', match: '/checkout/([^/?#]+)$' },
};

/** The sandbox cash delivery order createOrder's example places, as answers show it (partner and operations API). */
const ORDER_ID = 'sbx_7jeok0q0FjoyTEa0Y00cHC';
const PLACED_ORDER = {
  id: ORDER_ID,
  object: 'order',
  environment: 'sandbox',
  reference: 'partner-ref-1',
  order_number: 'PDM-8SN',
  status: 'placed',
  fulfilment: 'delivery',
  store: { id: REEM, name: 'Shawarma Al Reem' },
  pricing: { subtotal: 2.9, delivery_fee: 0, tip: 0, discount: 0.58, total: 2.32, currency: 'KWD' },
  payment: { method: 'cash', status: 'pending', refunded_amount: 0 },
  lines: [
    {
      item_id: 'chicken-shawarma-wrap',
      name: 'Chicken Shawarma Wrap',
      quantity: 2,
      unit_price: 0.7,
      options: [
        { id: 'size-large', group_id: 'size', name: 'Large', price: 0.3 },
        { id: 'extra-toum', group_id: 'extras', name: 'Extra garlic toum', price: 0.1 },
      ],
      line_total: 2.2,
    },
    { item_id: 'hummus', name: 'Hummus', quantity: 1, unit_price: 0.7, options: [], line_total: 0.7 },
  ],
  customer: { name: 'Fatima Al-Sabah', phone: '+96550001234' },
  delivery_address: {
    line1: 'Block 4, Street 12, House 7',
    floor: '2',
    apartment: '5',
    area: 'Salmiya',
    location: NEAR_REEM,
  },
  promo_code: null,
  offer_id: 'off-reem-20',
  quote_id: null,
  estimated_minutes: null,
  cancellation: null,
  created_at: '2026-11-21T12:00:00.000Z',
  updated_at: '2026-11-21T12:00:00.000Z',
};
const opsAnswer = (changes: Record<string, unknown>): ExampleResponse => ({
  status: 200,
  body: { data: { ...PLACED_ORDER, ...changes } },
});
/** The order an earlier operations example answered with: the order it walked one status on. */
const opsAfter = (operation: string) => ({ order_id: { operation, field: 'data.id' } });

export const OPERATION_EXAMPLES: Record<string, OperationExample> = {
  ping: {
    response: {
      status: 200,
      body: {
        data: {
          ok: true,
          api_version: 'v1',
          environment: 'sandbox',
          partner: { id: 'ptr_0otpfSFRs5dV4Q8j6', name: 'Examples Partner' },
          scopes: [
            'catalog:read',
            'offers:read',
            'promo_codes:validate',
            'orders:write',
            'orders:read',
            'webhooks:manage',
            'webhooks:read',
            'sandbox:write',
          ],
          rate_limit_per_min: 1200,
          server_time: '2026-11-21T12:00:00.000Z',
        },
      },
    },
  },
  listStores: {
    request: { query: { lat: NEAR_REEM.lat, lng: NEAR_REEM.lng, q: 'shawarma', limit: 2 } },
    response: {
      status: 200,
      body: {
        data: [
          {
            id: 'kw-shawarma-reem',
            object: 'store',
            name: 'Shawarma Al Reem',
            name_ar: 'شاورما الريم',
            vertical: 'restaurant',
            status: 'open',
            accepting_orders: true,
            opens_at: null,
            image_url: 'https://images.example-cdn.com/stores/kw-shawarma-reem/cover.jpg',
            currency: 'KWD',
            minimum_order: 2,
            prep_time_min: 13,
            category_ids: ['shawarma', 'arabic'],
            address: { area: 'Salmiya', city: 'Kuwait City' },
            distance_m: 966,
            delivery_fee: 0,
            estimated_minutes: 21,
          },
        ],
        pagination: { page: 1, limit: 2, total: 1, has_more: false },
      },
    },
  },
  getStore: {
    request: { params: { store_id: REEM } },
    response: {
      status: 200,
      body: {
        data: {
          id: 'kw-shawarma-reem',
          object: 'store',
          name: 'Shawarma Al Reem',
          name_ar: 'شاورما الريم',
          vertical: 'restaurant',
          status: 'open',
          accepting_orders: true,
          opens_at: null,
          image_url: 'https://images.example-cdn.com/stores/kw-shawarma-reem/cover.jpg',
          currency: 'KWD',
          minimum_order: 2,
          prep_time_min: 13,
          category_ids: ['shawarma', 'arabic'],
          description: 'Charcoal-kissed shawarma, garlic toum made every morning and Lebanese classics in Salmiya.',
          description_ar: 'شاورما على الفحم وثومية طازجة كل صباح وأطباق لبنانية كلاسيكية في السالمية.',
          closed_reason: null,
          busy: false,
          snoozed_until: null,
          location: { lat: 29.33491, lng: 48.077839 },
          address: { line1: 'Hamad Al Mubarak St, Building 53', area: 'Salmiya', city: 'Kuwait City', country: 'KW' },
          opening_hours: {
            time_zone: 'Asia/Kuwait',
            weekly: [
              { day: 'mon', open: '00:00', close: '24:00' },
              { day: 'tue', open: '00:00', close: '24:00' },
              { day: 'wed', open: '00:00', close: '24:00' },
              { day: 'thu', open: '00:00', close: '24:00' },
              { day: 'fri', open: '00:00', close: '24:00' },
              { day: 'sat', open: '00:00', close: '24:00' },
              { day: 'sun', open: '00:00', close: '24:00' },
            ],
            closures: [],
          },
          delivery: {
            zone: { type: 'radius', radius_m: 6000 },
            fees: [
              { up_to_m: 3000, fee: 0 },
              { up_to_m: 6000, fee: 0.5 },
              { up_to_m: 10000, fee: 1 },
            ],
          },
        },
      },
    },
  },
  getMenu: {
    request: { params: { store_id: REEM } },
    response: {
      status: 200,
      body: {
        data: {
          store: {
            id: 'kw-shawarma-reem',
            name: 'Shawarma Al Reem',
            name_ar: 'شاورما الريم',
            status: 'open',
            accepting_orders: true,
          },
          currency: 'KWD',
          categories: [
            {
              id: 'sandwiches',
              name: 'Shawarma Sandwiches',
              name_ar: 'سندويشات الشاورما',
              items: [
                {
                  id: 'chicken-shawarma-wrap',
                  object: 'item',
                  category_id: 'sandwiches',
                  name: 'Chicken Shawarma Wrap',
                  name_ar: 'شاورما دجاج',
                  description: 'Marinated chicken, garlic toum, pickles and fries in Lebanese bread.',
                  description_ar: 'دجاج متبل مع ثومية ومخلل وبطاطا في خبز لبناني.',
                  image_url: 'https://images.example-cdn.com/stores/kw-shawarma-reem/items/chicken-shawarma-wrap.jpg',
                  price: 0.7,
                  original_price: null,
                  currency: 'KWD',
                  available: true,
                  modifier_groups: [
                    {
                      id: 'size',
                      name: 'Size',
                      name_ar: 'الحجم',
                      required: true,
                      min_select: 1,
                      max_select: 1,
                      options: [
                        { id: 'size-regular', name: 'Regular', name_ar: 'عادي', price: 0 },
                        { id: 'size-large', name: 'Large', name_ar: 'كبير', price: 0.3 },
                        { id: 'size-jumbo', name: 'Jumbo', name_ar: 'جامبو', price: 0.6 },
                      ],
                    },
                    {
                      id: 'extras',
                      name: 'Extras',
                      name_ar: 'إضافات',
                      required: false,
                      min_select: 0,
                      max_select: 3,
                      options: [
                        { id: 'extra-toum', name: 'Extra garlic toum', name_ar: 'ثومية إضافية', price: 0.1 },
                        { id: 'extra-cheese', name: 'Mozzarella', name_ar: 'جبنة موزاريلا', price: 0.2 },
                        { id: 'extra-fries', name: 'Fries inside', name_ar: 'بطاطا داخل الساندويش', price: 0.15 },
                        { id: 'no-pickles', name: 'No pickles', name_ar: 'بدون مخلل', price: 0 },
                      ],
                    },
                  ],
                },
                {
                  id: 'beef-shawarma-wrap',
                  object: 'item',
                  category_id: 'sandwiches',
                  name: 'Beef Shawarma Wrap',
                  name_ar: 'شاورما لحم',
                  description: 'Slow-roasted beef with tahini, parsley, tomato and onion.',
                  description_ar: 'لحم مشوي ببطء مع طحينة وبقدونس وطماطم وبصل.',
                  image_url: 'https://images.example-cdn.com/stores/kw-shawarma-reem/items/beef-shawarma-wrap.jpg',
                  price: 0.7,
                  original_price: null,
                  currency: 'KWD',
                  available: true,
                  modifier_groups: [
                    {
                      id: 'size',
                      name: 'Size',
                      name_ar: 'الحجم',
                      required: true,
                      min_select: 1,
                      max_select: 1,
                      options: [
                        { id: 'size-regular', name: 'Regular', name_ar: 'عادي', price: 0 },
                        { id: 'size-large', name: 'Large', name_ar: 'كبير', price: 0.3 },
                        { id: 'size-jumbo', name: 'Jumbo', name_ar: 'جامبو', price: 0.6 },
                      ],
                    },
                    {
                      id: 'extras',
                      name: 'Extras',
                      name_ar: 'إضافات',
                      required: false,
                      min_select: 0,
                      max_select: 3,
                      options: [
                        { id: 'extra-toum', name: 'Extra garlic toum', name_ar: 'ثومية إضافية', price: 0.1 },
                        { id: 'extra-cheese', name: 'Mozzarella', name_ar: 'جبنة موزاريلا', price: 0.2 },
                        { id: 'extra-fries', name: 'Fries inside', name_ar: 'بطاطا داخل الساندويش', price: 0.15 },
                        { id: 'no-pickles', name: 'No pickles', name_ar: 'بدون مخلل', price: 0 },
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      },
    },
  },
  getItem: {
    request: { params: { store_id: REEM, item_id: 'chicken-shawarma-wrap' } },
    response: {
      status: 200,
      body: {
        data: {
          id: 'chicken-shawarma-wrap',
          object: 'item',
          category_id: 'sandwiches',
          name: 'Chicken Shawarma Wrap',
          name_ar: 'شاورما دجاج',
          description: 'Marinated chicken, garlic toum, pickles and fries in Lebanese bread.',
          description_ar: 'دجاج متبل مع ثومية ومخلل وبطاطا في خبز لبناني.',
          image_url: 'https://images.example-cdn.com/stores/kw-shawarma-reem/items/chicken-shawarma-wrap.jpg',
          price: 0.7,
          original_price: null,
          currency: 'KWD',
          available: true,
          modifier_groups: [
            {
              id: 'size',
              name: 'Size',
              name_ar: 'الحجم',
              required: true,
              min_select: 1,
              max_select: 1,
              options: [
                { id: 'size-regular', name: 'Regular', name_ar: 'عادي', price: 0 },
                { id: 'size-large', name: 'Large', name_ar: 'كبير', price: 0.3 },
                { id: 'size-jumbo', name: 'Jumbo', name_ar: 'جامبو', price: 0.6 },
              ],
            },
            {
              id: 'extras',
              name: 'Extras',
              name_ar: 'إضافات',
              required: false,
              min_select: 0,
              max_select: 3,
              options: [
                { id: 'extra-toum', name: 'Extra garlic toum', name_ar: 'ثومية إضافية', price: 0.1 },
                { id: 'extra-cheese', name: 'Mozzarella', name_ar: 'جبنة موزاريلا', price: 0.2 },
                { id: 'extra-fries', name: 'Fries inside', name_ar: 'بطاطا داخل الساندويش', price: 0.15 },
                { id: 'no-pickles', name: 'No pickles', name_ar: 'بدون مخلل', price: 0 },
              ],
            },
          ],
        },
      },
    },
  },
  getDeliveryQuote: {
    request: { params: { store_id: REEM }, query: NEAR_REEM },
    response: {
      status: 200,
      body: {
        data: {
          object: 'delivery_quote',
          store_id: 'kw-shawarma-reem',
          location: { lat: 29.3349, lng: 48.0878 },
          in_zone: true,
          distance_m: 966,
          delivery_fee: 0,
          currency: 'KWD',
          minimum_order: 2,
          estimated_minutes: 21,
          store_status: 'open',
          accepting_orders: true,
          id: 'quo_AQAAAaH-A23AQD1VvAGjbi9ASAs9B8hLXgAAAAAAFaC7YL2s-ielrn6mCB0XTgI',
          expires_at: '2026-11-21T12:10:00.000Z',
        },
      },
    },
  },
  listStoreOffers: {
    request: { params: { store_id: REEM } },
    response: {
      status: 200,
      body: {
        data: [KW_FREE_DELIVERY_OFFER, REEM_20_OFFER],
      },
    },
  },
  listOffers: {
    request: { query: { lat: NEAR_REEM.lat, lng: NEAR_REEM.lng, limit: 2 } },
    response: {
      status: 200,
      body: {
        data: [KW_FREE_DELIVERY_OFFER, REEM_20_OFFER],
      },
    },
  },
  validatePromoCode: {
    request: { body: { code: 'REEM5', store_id: REEM, subtotal: 3.5 } },
    response: {
      status: 200,
      body: {
        data: {
          object: 'promo_code_validation',
          code: 'REEM5',
          store_id: 'kw-shawarma-reem',
          valid: true,
          reason: null,
          discount: 0.5,
          applies_to: 'subtotal',
          currency: 'KWD',
          subtotal: 3.5,
          delivery_fee: 0,
          offer_id: 'off-reem5',
          offer: {
            id: 'off-reem5',
            object: 'offer',
            title: 'REEM5: 0.500 KWD off at Shawarma Al Reem over 2 KWD',
            title_ar: 'REEM5: خصم ٠٫٥٠٠ د.ك في شاورما الريم فوق ٢ د.ك',
            scope: 'store',
            store_id: 'kw-shawarma-reem',
            kind: 'fixed',
            percent: null,
            amount: 0.5,
            currency: 'KWD',
            min_subtotal: 2,
            max_discount: null,
            applies_to: 'subtotal',
            requires_code: true,
            promo_code: 'REEM5',
            verticals: null,
            cities: null,
            starts_at: '2020-01-01T00:00:00Z',
            ends_at: '2099-12-31T23:59:59Z',
          },
          applied: false,
          order_discount: 0.7,
          order_offer_id: 'off-reem-20',
        },
      },
    },
  },
  search: {
    request: { query: { q: 'shawarma', lat: NEAR_REEM.lat, lng: NEAR_REEM.lng, limit: 2 } },
    response: {
      status: 200,
      body: {
        data: {
          stores: [
            {
              id: 'kw-shawarma-reem',
              object: 'store',
              name: 'Shawarma Al Reem',
              name_ar: 'شاورما الريم',
              vertical: 'restaurant',
              status: 'open',
              accepting_orders: true,
              opens_at: null,
              image_url: 'https://images.example-cdn.com/stores/kw-shawarma-reem/cover.jpg',
              currency: 'KWD',
              minimum_order: 2,
              prep_time_min: 13,
              category_ids: ['shawarma', 'arabic'],
              address: { area: 'Salmiya', city: 'Kuwait City' },
              distance_m: 966,
              delivery_fee: 0,
              estimated_minutes: 21,
            },
          ],
          items: [
            {
              id: 'arabi-shawarma-platter',
              object: 'item',
              category_id: 'sandwiches',
              name: 'Shawarma Arabi',
              name_ar: 'شاورما عربي',
              description: 'Chicken shawarma cut into bites, with fries, toum and pickles.',
              description_ar: null,
              image_url: 'https://images.example-cdn.com/stores/kw-shawarma-reem/items/arabi-shawarma-platter.jpg',
              price: 2,
              original_price: 2.6,
              currency: 'KWD',
              available: true,
              modifier_groups: [
                {
                  id: 'sauces',
                  name: 'Sauces',
                  name_ar: 'الصلصات',
                  required: false,
                  min_select: 0,
                  max_select: 2,
                  options: [
                    { id: 'sauce-toum', name: 'Garlic toum', name_ar: 'ثومية', price: 0 },
                    { id: 'sauce-tahini', name: 'Tahini', name_ar: 'طحينة', price: 0 },
                    { id: 'sauce-chili', name: 'Hot chili', name_ar: 'شطة حارة', price: 0.05 },
                    { id: 'sauce-bbq', name: 'Smoky BBQ', name_ar: 'باربكيو مدخن', price: 0.1 },
                  ],
                },
              ],
              store: { id: 'kw-shawarma-reem', name: 'Shawarma Al Reem', status: 'open' },
            },
            {
              id: 'shawarma-fries',
              object: 'item',
              category_id: 'sides',
              name: 'Shawarma Spiced Fries',
              name_ar: 'بطاطا بهارات الشاورما',
              description: 'Crispy fries tossed in our shawarma spice.',
              description_ar: 'بطاطا مقرمشة ببهارات الشاورما.',
              image_url: 'https://images.example-cdn.com/stores/kw-shawarma-reem/items/shawarma-fries.jpg',
              price: 0.5,
              original_price: null,
              currency: 'KWD',
              available: true,
              modifier_groups: [],
              store: { id: 'kw-shawarma-reem', name: 'Shawarma Al Reem', status: 'open' },
            },
          ],
        },
      },
    },
  },
  listCategories: {
    response: {
      status: 200,
      body: {
        data: [
          {
            id: 'shawarma',
            object: 'category',
            name: 'Shawarma',
            name_ar: 'شاورما',
            image_url: 'https://images.example-cdn.com/categories/shawarma.png',
          },
          {
            id: 'burgers',
            object: 'category',
            name: 'Burgers',
            name_ar: 'برجر',
            image_url: 'https://images.example-cdn.com/categories/burgers.png',
          },
          {
            id: 'grills',
            object: 'category',
            name: 'Grills',
            name_ar: 'مشاوي',
            image_url: 'https://images.example-cdn.com/categories/grills.png',
          },
        ],
      },
    },
  },
  createOrder: {
    summary: 'A cash delivery order from Shawarma Al Reem',
    request: { headers: { 'Idempotency-Key': '4f0c2a9e-8d3b-4e61-9a57-2c1d0b8e7f63' }, body: EXAMPLE_ORDER_BODY },
    response: {
      status: 201,
      body: {
        data: PLACED_ORDER,
      },
    },
  },
  getOrder: {
    request: { params: { order_id: ORDER_ID } },
    uses: order,
    response: {
      status: 200,
      body: {
        data: PLACED_ORDER,
      },
    },
  },
  listOrders: {
    request: { query: { limit: 10, reference: 'partner-ref-1' } },
    response: {
      status: 200,
      body: {
        data: [PLACED_ORDER],
        pagination: { limit: 10, has_more: false, next_starting_after: null },
      },
    },
  },
  getOrderTracking: {
    request: { params: { order_id: ORDER_ID } },
    uses: order,
    response: {
      status: 200,
      body: {
        data: {
          order_id: ORDER_ID,
          status: 'placed',
          fulfilment: 'delivery',
          timeline: [{ status: 'placed', at: '2026-11-21T12:00:00.000Z' }],
          rider: null,
        },
      },
    },
  },
  cancelOrder: {
    request: {
      params: { order_id: ORDER_ID },
      body: { reason: 'The customer changed their mind.' },
    },
    uses: order,
    response: {
      status: 200,
      body: {
        data: {
          ...PLACED_ORDER,
          status: 'cancelled',
          cancellation: { by: 'partner', reason: 'The customer changed their mind.' },
        },
      },
    },
  },
  createPaymentLink: {
    request: { params: { order_id: ORDER_ID } },
    uses: cardOrder,
    response: {
      status: 201,
      body: {
        data: {
          object: 'payment_link',
          id: 'pl_5db06e5e7cb2fa606084c848',
          order_id: ORDER_ID,
          url: 'http://localhost:3000/checkout/cs_1LQNDhcLkecbR4BihWUN9wIM5EBZgx1vS',
          amount: 2.32,
          currency: 'KWD',
          expires_at: '2026-11-21T12:30:00.000Z',
        },
      },
    },
  },
  advanceSandboxOrder: {
    request: { params: { order_id: ORDER_ID } },
    uses: order,
    response: {
      status: 200,
      body: {
        data: { ...PLACED_ORDER, status: 'confirmed' },
      },
    },
  },
  simulateSandboxOrder: {
    summary: 'The card payment of a sandbox card order succeeds',
    request: { params: { order_id: ORDER_ID }, body: { action: 'payment_succeeded' } },
    uses: cardOrder,
    response: {
      status: 200,
      body: {
        data: { ...PLACED_ORDER, payment: { method: 'card', status: 'paid', refunded_amount: 0 } },
      },
    },
  },
  putWebhookEndpoint: {
    request: { body: { url: WEBHOOK_URL } },
    response: {
      status: 201,
      body: {
        data: {
          object: 'webhook_endpoint',
          url: 'https://hooks.example.com/orders',
          events: null,
          enabled_events: null,
          secret_hint: '3hJr',
          secret: 'whsec_qVbLvbSuTUkfoOOsggxrNOBvGD6nv5TYbwaWehW3hJr',
          previous_secret_expires_at: null,
          created_at: '2026-11-21T12:00:00.000Z',
          updated_at: '2026-11-21T12:00:00.000Z',
        },
      },
    },
  },
  rotateWebhookSecret: {
    prepare: ['putWebhookEndpoint'],
    response: {
      status: 200,
      body: {
        data: {
          object: 'webhook_endpoint',
          url: 'https://hooks.example.com/orders',
          events: null,
          enabled_events: null,
          secret_hint: 'iS8T',
          secret: 'whsec_HiEZoYSwGZS4XKd2q1hWMjhrM7pcxcUU9yXiJ6siS8T',
          previous_secret_expires_at: '2026-11-22T12:00:00.000Z',
          created_at: '2026-11-21T12:00:00.000Z',
          updated_at: '2026-11-21T12:00:00.000Z',
        },
      },
    },
  },
  sendTestWebhook: {
    prepare: ['putWebhookEndpoint'],
    response: {
      status: 202,
      body: {
        data: {
          id: 'whd_48cb8ce3a3d878349749079a8a6b4f09',
          object: 'webhook_delivery',
          event_id: 'evt_ff6c332847a2b38fc227b92db0da4a97',
          event_type: 'webhook.test',
          order_id: null,
          url: 'https://hooks.example.com/orders',
          status: 'pending',
          attempt_count: 0,
          next_attempt_at: '2026-11-21T12:00:00.000Z',
          created_at: '2026-11-21T12:00:00.000Z',
          updated_at: '2026-11-21T12:00:00.000Z',
          attempts: [],
          failure_reason: null,
        },
      },
    },
  },
  listWebhookDeliveries: {
    request: { query: { limit: 10 } },
    response: {
      status: 200,
      body: {
        data: [
          {
            id: 'whd_48cb8ce3a3d878349749079a8a6b4f09',
            object: 'webhook_delivery',
            event_id: 'evt_ff6c332847a2b38fc227b92db0da4a97',
            event_type: 'webhook.test',
            order_id: null,
            url: 'https://hooks.example.com/orders',
            status: 'retrying',
            attempt_count: 1,
            next_attempt_at: '2026-11-21T12:01:00.000Z',
            created_at: '2026-11-21T12:00:00.000Z',
            updated_at: '2026-11-21T12:00:00.000Z',
            attempts: [
              {
                at: '2026-11-21T12:00:00.000Z',
                trigger: 'schedule',
                url: 'https://hooks.example.com/orders',
                status: null,
                duration_ms: 35,
                error: 'connection refused',
              },
            ],
            failure_reason: null,
          },
        ],
        pagination: { limit: 10, has_more: false, next_starting_after: null },
      },
    },
  },
  getWebhookDelivery: {
    request: { params: { delivery_id: 'whd_48cb8ce3a3d878349749079a8a6b4f09' } },
    uses: delivery,
    response: {
      status: 200,
      body: {
        data: {
          id: 'whd_48cb8ce3a3d878349749079a8a6b4f09',
          object: 'webhook_delivery',
          event_id: 'evt_ff6c332847a2b38fc227b92db0da4a97',
          event_type: 'webhook.test',
          order_id: null,
          url: 'https://hooks.example.com/orders',
          status: 'retrying',
          attempt_count: 1,
          next_attempt_at: '2026-11-21T12:01:00.000Z',
          created_at: '2026-11-21T12:00:00.000Z',
          updated_at: '2026-11-21T12:00:00.000Z',
          attempts: [
            {
              at: '2026-11-21T12:00:00.000Z',
              trigger: 'schedule',
              url: 'https://hooks.example.com/orders',
              status: null,
              duration_ms: 3,
              error: 'connection refused',
            },
          ],
          failure_reason: null,
        },
      },
    },
  },
  redeliverWebhook: {
    request: { params: { delivery_id: 'whd_48cb8ce3a3d878349749079a8a6b4f09' } },
    uses: delivery,
    response: {
      status: 200,
      body: {
        data: {
          id: 'whd_48cb8ce3a3d878349749079a8a6b4f09',
          object: 'webhook_delivery',
          event_id: 'evt_ff6c332847a2b38fc227b92db0da4a97',
          event_type: 'webhook.test',
          order_id: null,
          url: 'https://hooks.example.com/orders',
          status: 'retrying',
          attempt_count: 2,
          next_attempt_at: '2026-11-21T12:01:00.000Z',
          created_at: '2026-11-21T12:00:00.000Z',
          updated_at: '2026-11-21T12:00:00.000Z',
          attempts: [
            {
              at: '2026-11-21T12:00:00.000Z',
              trigger: 'schedule',
              url: 'https://hooks.example.com/orders',
              status: null,
              duration_ms: 2,
              error: 'connection refused',
            },
            {
              at: '2026-11-21T12:00:00.000Z',
              trigger: 'redelivery',
              url: 'https://hooks.example.com/orders',
              status: null,
              duration_ms: 2,
              error: 'connection refused',
            },
          ],
          failure_reason: null,
        },
      },
    },
  },
  getWebhookEndpoint: {
    prepare: ['putWebhookEndpoint'],
    response: {
      status: 200,
      body: {
        data: {
          object: 'webhook_endpoint',
          url: 'https://hooks.example.com/orders',
          events: null,
          enabled_events: null,
          secret_hint: '3hJr',
          previous_secret_expires_at: null,
          created_at: '2026-11-21T12:00:00.000Z',
          updated_at: '2026-11-21T12:00:00.000Z',
        },
      },
    },
  },
  recoverWebhooks: {
    prepare: ['putWebhookEndpoint'],
    request: { body: { since: '2026-11-21T11:00:00.000Z' } },
    response: {
      status: 202,
      body: { data: { object: 'webhook_recovery', since: '2026-11-21T11:00:00.000Z', queued: 1 } },
    },
  },
  listEvents: {
    prepare: ['sendTestWebhook'],
    request: { query: { limit: 10, type: 'webhook.test' } },
    response: {
      status: 200,
      body: {
        data: [
          {
            id: 'evt_ff6c332847a2b38fc227b92db0da4a97',
            object: 'event',
            type: 'webhook.test',
            created: '2026-11-21T12:00:00.000Z',
            environment: 'sandbox',
            data: {
              message: 'This is a test event sent because you called POST /v1/webhooks/test.',
              partner_id: 'ptr_0otpfSFRs5dV4Q8j6',
            },
            delivery: { id: 'whd_48cb8ce3a3d878349749079a8a6b4f09', status: 'retrying', success: false },
          },
        ],
        pagination: { limit: 10, has_more: false, next_starting_after: null },
      },
    },
  },
  getEvent: {
    request: { params: { event_id: 'evt_ff6c332847a2b38fc227b92db0da4a97' } },
    uses: { event_id: { operation: 'sendTestWebhook', field: 'data.event_id' } },
    response: {
      status: 200,
      body: {
        data: {
          id: 'evt_ff6c332847a2b38fc227b92db0da4a97',
          object: 'event',
          type: 'webhook.test',
          created: '2026-11-21T12:00:00.000Z',
          environment: 'sandbox',
          data: {
            message: 'This is a test event sent because you called POST /v1/webhooks/test.',
            partner_id: 'ptr_0otpfSFRs5dV4Q8j6',
          },
          delivery: { id: 'whd_48cb8ce3a3d878349749079a8a6b4f09', status: 'retrying', success: false },
        },
      },
    },
  },
  deleteWebhookEndpoint: {
    prepare: ['putWebhookEndpoint'],
    response: {
      status: 200,
      body: {
        data: {
          object: 'webhook_endpoint',
          url: 'https://hooks.example.com/orders',
          events: null,
          enabled_events: null,
          secret_hint: '3hJr',
          previous_secret_expires_at: null,
          created_at: '2026-11-21T12:00:00.000Z',
          updated_at: '2026-11-21T12:00:00.000Z',
          deleted: true,
          failed_deliveries: 1,
        },
      },
    },
  },
  getOpenApiDocument: {
    response: {
      status: 200,
      body: {
        openapi: '3.1.0',
        info: { title: 'Partner Ordering API', version: '1.0.0' },
        servers: [{ url: '/' }],
        paths: {
          '/v1/ping': {
            get: { operationId: 'ping', summary: 'Check a key: who it belongs to, its environment and scopes' },
          },
        },
        webhooks: { 'order.created': { post: { operationId: 'webhook_order_created' } } },
      },
    },
  },
  getApiReference: {
    response: {
      status: 200,
      body: '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\u2026',
      contentType: 'text/html',
    },
  },
  getApiReferenceAsset: {
    request: { params: { file: 'init.js' } },
    response: {
      status: 200,
      body: "'use strict';\nScalar.createApiReference('#app', {\u2026",
      contentType: 'text/javascript',
    },
  },
  healthz: { response: { status: 200, body: { data: { status: 'ok' } } } },
  readyz: {
    response: {
      status: 200,
      body: { data: { status: 'ok', checks: { event_store: 'ok', partners: 'ok', read_models: 'ok' } } },
    },
  },
  getMetrics: {
    response: {
      status: 200,
      body: '# HELP http_requests_total HTTP requests answered, by method, route and status.\n# TYPE http_requests_total counter\n\u2026',
      contentType: 'text/plain',
    },
  },
  getInternalOpenApiDocument: {
    response: {
      status: 200,
      body: {
        openapi: '3.1.0',
        info: { title: 'Partner Ordering API: operations', version: '1.0.0' },
        servers: [{ url: '/' }],
        paths: { '/internal/projections': { get: { operationId: 'listProjections' } } },
      },
    },
  },
  listProjections: {
    response: {
      status: 200,
      body: {
        data: [
          { name: 'orders-list', collection: 'orders', position: '36', checkpoint: '36', head: '36', lag: '0' },
          {
            name: 'rider-positions',
            collection: 'rider_positions',
            position: '36',
            checkpoint: '36',
            head: '36',
            lag: '0',
          },
          {
            name: 'webhook-deliveries',
            collection: 'webhook_deliveries',
            position: '36',
            checkpoint: '36',
            head: '36',
            lag: '0',
          },
          {
            name: 'webhook-events',
            collection: 'webhook_events',
            position: '36',
            checkpoint: '36',
            head: '36',
            lag: '0',
          },
        ],
      },
    },
  },
  rebuildProjection: {
    request: { params: { name: 'orders-list' } },
    response: {
      status: 202,
      body: {
        data: { name: 'orders-list', collection: 'orders', position: '0', checkpoint: '0', head: '36', lag: '36' },
      },
    },
  },
  listReadModelDocuments: {
    request: { params: { collection: 'orders' }, query: { limit: 1 } },
    response: {
      status: 200,
      body: {
        data: [
          {
            id: ORDER_ID,
            seq: 1,
            versions: { 'order-sbx_7jeok0q0FjoyTEa0Y00cHC': 0 },
            doc: {
              id: ORDER_ID,
              partner_id: 'ptr_0otpfSFRs5dV4Q8j6',
              environment: 'sandbox',
              reference: 'partner-ref-1',
              status: 'placed',
              created_at: '2026-11-21T12:00:00.000Z',
              updated_at: '2026-11-21T12:00:00.000Z',
              timeline: [{ status: 'placed', at: '2026-11-21T12:00:00.000Z' }],
              order: {
                order_id: ORDER_ID,
                environment: 'sandbox',
                partner_id: 'ptr_0otpfSFRs5dV4Q8j6',
                reference: 'partner-ref-1',
                order_number: 'DLM-647',
                store: { id: 'kw-shawarma-reem', name: 'Shawarma Al Reem' },
                currency: 'KWD',
                fulfilment: 'delivery',
                lines: [
                  {
                    item_id: 'chicken-shawarma-wrap',
                    name: 'Chicken Shawarma Wrap',
                    quantity: 2,
                    unit_price: 700,
                    options: [
                      { id: 'size-large', group_id: 'size', name: 'Large', price: 300 },
                      { id: 'extra-toum', group_id: 'extras', name: 'Extra garlic toum', price: 100 },
                    ],
                    line_total: 2200,
                  },
                  { item_id: 'hummus', name: 'Hummus', quantity: 1, unit_price: 700, options: [], line_total: 700 },
                ],
                customer: { name: 'Fatima Al-Sabah', phone: '+96550001234' },
                delivery_address: {
                  line1: 'Block 4, Street 12, House 7',
                  floor: '2',
                  apartment: '5',
                  area: 'Salmiya',
                  location: { lat: 29.3349, lng: 48.0878 },
                },
                payment_method: 'cash',
                pricing: { subtotal: 2900, delivery_fee: 0, tip: 0, discount: 580, total: 2320 },
                promo_code: null,
                offer_id: 'off-reem-20',
                placed_at: '2026-11-21T12:00:00.000Z',
                created_at: '2026-11-21T12:00:00.000Z',
                status: 'placed',
                payment_status: 'pending',
                rider: null,
                refunded_total: 0,
                cancellation: null,
                updated_at: '2026-11-21T12:00:00.000Z',
                version: 1,
              },
            },
          },
        ],
        pagination: { limit: 1, has_more: true, next_starting_after: ORDER_ID },
      },
    },
  },
  // The operations API, one operation per action. Each acts on a fresh sandbox order that the
  // examples before it in the chain (`opsAfter`) walked to the status the action needs.
  operateOrderAccept: {
    request: { params: { order_id: ORDER_ID } },
    uses: order,
    response: opsAnswer({ status: 'confirmed' }),
  },
  operateOrderStart: {
    request: { params: { order_id: ORDER_ID } },
    uses: opsAfter('operateOrderAccept'),
    response: opsAnswer({ status: 'preparing' }),
  },
  operateOrderReady: {
    request: { params: { order_id: ORDER_ID } },
    uses: opsAfter('operateOrderStart'),
    response: opsAnswer({ status: 'ready' }),
  },
  operateOrderAssignRider: {
    request: {
      params: { order_id: ORDER_ID },
      body: { name: 'Ahmed Al-Rashid', phone: '+96555512345', vehicle: 'motorbike' },
    },
    uses: opsAfter('operateOrderReady'),
    response: opsAnswer({ status: 'ready' }),
  },
  operateOrderRiderLocation: {
    request: { params: { order_id: ORDER_ID }, body: { lat: 29.3352, lng: 48.0801 } },
    uses: opsAfter('operateOrderAssignRider'),
    response: opsAnswer({ status: 'ready' }),
  },
  operateOrderPickup: {
    request: { params: { order_id: ORDER_ID } },
    uses: opsAfter('operateOrderAssignRider'),
    response: opsAnswer({ status: 'out_for_delivery' }),
  },
  operateOrderDeliver: {
    request: { params: { order_id: ORDER_ID } },
    uses: opsAfter('operateOrderPickup'),
    response: opsAnswer({ status: 'delivered', payment: { method: 'cash', status: 'paid', refunded_amount: 0 } }),
  },
  operateOrderCollect: {
    summary: 'Collect is for pickup orders: a delivery order is refused',
    request: { params: { order_id: ORDER_ID } },
    uses: order,
    response: {
      status: 409,
      body: {
        error: {
          code: 'invalid_transition',
          message: 'Delivery orders are delivered, not collected.',
          request_id: 'req_8fK2mQ9xLp3ZbT4wV',
        },
      },
    },
  },
  operateOrderCancel: {
    request: { params: { order_id: ORDER_ID }, body: { reason: 'The store ran out of bread.' } },
    uses: order,
    response: opsAnswer({
      status: 'cancelled',
      cancellation: { by: 'restaurant', reason: 'The store ran out of bread.' },
    }),
  },
  operateOrderRefund: {
    summary: 'Refund 1 KWD of a delivered cash order',
    request: { params: { order_id: ORDER_ID }, body: { amount: 1 } },
    uses: opsAfter('operateOrderDeliver'),
    response: opsAnswer({
      status: 'partially_refunded',
      payment: { method: 'cash', status: 'partially_refunded', refunded_amount: 1 },
    }),
  },
  operateOrderPay: {
    request: { params: { order_id: ORDER_ID } },
    uses: cardOrder,
    response: opsAnswer({ payment: { method: 'card', status: 'paid', refunded_amount: 0 } }),
  },
  operateOrderFailPayment: {
    request: { params: { order_id: ORDER_ID }, body: { reason: 'card_declined' } },
    uses: cardOrder,
    response: opsAnswer({ payment: { method: 'card', status: 'failed', refunded_amount: 0 } }),
  },
  checkoutPage: {
    request: { params: { session_id: 'cs_1LQNDhcLkecbR4BihWUN9wIM5EBZgx1vS' } },
    uses: session,
    response: { status: 200, body: '<!doctype html>\u2026<h1>Pay 2.320 KWD</h1>\u2026', contentType: 'text/html' },
  },
  checkoutPay: {
    request: { params: { session_id: 'cs_1LQNDhcLkecbR4BihWUN9wIM5EBZgx1vS' } },
    uses: session,
    response: { status: 200, body: '<!doctype html>\u2026<h1>Payment received</h1>\u2026', contentType: 'text/html' },
  },
  checkoutDecline: {
    request: { params: { session_id: 'cs_1LQNDhcLkecbR4BihWUN9wIM5EBZgx1vS' } },
    uses: session,
    response: { status: 200, body: '<!doctype html>\u2026<h1>Payment declined</h1>\u2026', contentType: 'text/html' },
  },
};

type Media = { example?: unknown };
type ParameterSchema = { type?: unknown; properties?: Record<string, ParameterSchema> };
type Parameter = { name: string; in: string; example?: unknown; explode?: boolean; schema?: ParameterSchema };
type Operation = {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};

function parameterExample(example: OperationExample, parameter: Parameter): unknown {
  const request = example.request ?? {};
  if (parameter.in === 'path') return request.params?.[parameter.name];
  if (parameter.in === 'query') {
    const query = request.query ?? {};
    // Query values are text: a number written here is shown as text where the schema is a string.
    const asText = (value: unknown, schema: ParameterSchema | undefined) =>
      typeof value === 'number' && schema?.type === 'string' ? String(value) : value;
    const properties = parameter.schema?.type === 'object' ? parameter.schema.properties : undefined;
    if (properties && parameter.explode !== false) {
      // An exploded object (style form, e.g. lat and lng): each property is a query parameter of its own.
      const given = Object.entries(properties).filter(([name]) => query[name] !== undefined);
      return given.length ? Object.fromEntries(given.map(([name, s]) => [name, asText(query[name], s)])) : undefined;
    }
    return asText(query[parameter.name], parameter.schema);
  }
  if (parameter.in === 'header') {
    const name = parameter.name.toLowerCase();
    return Object.entries(request.headers ?? {}).find(([h]) => h.toLowerCase() === name)?.[1];
  }
  return undefined;
}

/**
 * Writes each operation's examples into a generated document: `example` on its parameters, its
 * JSON request body and the documented response. New objects throughout, so nothing the
 * generator shares between operations is changed.
 */
export function applyExamples(document: Record<string, unknown>): Record<string, unknown> {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const example = operation.operationId ? OPERATION_EXAMPLES[operation.operationId] : undefined;
      if (!example) continue;
      if (operation.parameters) {
        operation.parameters = operation.parameters.map((p) => {
          const value = parameterExample(example, p);
          return value === undefined ? p : { ...p, example: value };
        });
      }
      const body = operation.requestBody?.content?.['application/json'];
      if (body && example.request && 'body' in example.request) {
        operation.requestBody!.content!['application/json'] = { ...body, example: example.request.body };
      }
      const contentType = example.response.contentType ?? 'application/json';
      const answer = operation.responses?.[String(example.response.status)];
      const media = answer?.content?.[contentType];
      if (answer && media) {
        operation.responses![String(example.response.status)] = {
          ...answer,
          content: { ...answer.content, [contentType]: { ...media, example: example.response.body } },
        };
      }
    }
  }
  return document;
}

type ExampleOrder = Record<string, unknown> & { payment: Record<string, unknown> };
const placed = (OPERATION_EXAMPLES.createOrder!.response.body as { data: ExampleOrder }).data;
const at = (minutes: number) => new Date(Date.parse('2026-11-21T12:00:00.000Z') + minutes * 60_000).toISOString();
const event = (type: EventType, id: string, created: string, data: unknown) => ({
  id,
  object: 'event',
  type,
  created,
  environment: 'sandbox',
  data,
});
const delivered = {
  ...placed,
  status: 'delivered',
  payment: { ...placed.payment, status: 'paid' },
  updated_at: at(35),
};

/** The body of each webhook event type as a receiver gets it (the `webhooks` section of the partner document). */
export const WEBHOOK_EXAMPLES: Record<EventType, unknown> = {
  'order.created': event('order.created', 'evt_5b0c1f2e9a7d4c3b8e6f1a2d3c4b5a69', placed.created_at as string, {
    order: placed,
  }),
  'order.status_changed': event('order.status_changed', 'evt_0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c', at(2), {
    order: { ...placed, status: 'confirmed', updated_at: at(2) },
    previous_status: 'placed',
  }),
  'order.payment_updated': event('order.payment_updated', 'evt_9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f', at(35), {
    order: delivered,
  }),
  'order.refunded': event('order.refunded', 'evt_1f2e3d4c5b6a79880f1e2d3c4b5a6978', at(60), {
    order: {
      ...delivered,
      status: 'partially_refunded',
      payment: { ...delivered.payment, status: 'partially_refunded', refunded_amount: 0.7 },
      updated_at: at(60),
    },
  }),
  'webhook.test': event('webhook.test', 'evt_2d4f6a8c0e1b3d5f7a9c1e3b5d7f9a1c', at(1), {
    message: 'This is a test event sent because you called POST /v1/webhooks/test.',
    partner_id: 'ptr_0otpfSFRs5dV4Q8j6',
  }),
};

/**
 * The catalog as imported and stored: zod schemas and the types inferred from them.
 * Money fields are integer minor units of the store's (or offer's) currency.
 * Checks that span one object live here; checks across the catalog live in validate.ts.
 */
import { z } from 'zod';
import { CURRENCIES } from '../money.js';
import { isValidTimeZone, WEEKDAYS } from './local-time.js';

export const VERTICALS = ['restaurant', 'pharmacy', 'grocery'] as const;
export type Vertical = (typeof VERTICALS)[number];

/** Ids travel in URL paths: keep them to a safe alphabet. */
const Id = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'id: 1-64 of A-Z a-z 0-9 _ - (not starting with _ or -)');
const Name = z.string().trim().min(1).max(120);
const Text = z.string().max(1000);
const ImageUrl = z.url({ protocol: /^https?$/ }).max(500);
const Minor = z.int().min(0).max(1_000_000_000);
const Hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM (00:00-23:59)');
const CloseHhmm = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'expected HH:MM (00:00-24:00)');
const IsoDate = z.iso.date();
const IsoInstant = z.iso.datetime({ offset: true });

export const PointSchema = z.strictObject({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
});
export type Point = z.infer<typeof PointSchema>;

export const OptionSchema = z.strictObject({ id: Id, name: Name, name_ar: Name.nullable().optional(), price: Minor });

export const ModifierGroupSchema = z
  .strictObject({
    id: Id,
    name: Name,
    name_ar: Name.nullable().optional(),
    required: z.boolean(),
    min_select: z.int().min(0).max(50),
    max_select: z.int().min(1).max(50).nullable(),
    options: z.array(OptionSchema).min(1).max(100),
  })
  .superRefine((g, ctx) => {
    if (g.max_select !== null && g.min_select > g.max_select) {
      ctx.addIssue({ code: 'custom', path: ['min_select'], message: 'min_select must not exceed max_select' });
    }
    if (g.required && g.min_select < 1) {
      ctx.addIssue({ code: 'custom', path: ['min_select'], message: 'a required group needs min_select >= 1' });
    }
    if (!g.required && g.min_select !== 0) {
      ctx.addIssue({ code: 'custom', path: ['min_select'], message: 'an optional group has min_select 0' });
    }
    if (g.min_select > g.options.length) {
      ctx.addIssue({ code: 'custom', path: ['min_select'], message: 'min_select exceeds the number of options' });
    }
  });

export const ItemSchema = z
  .strictObject({
    id: Id,
    name: Name,
    name_ar: Name.nullable(),
    description: Text,
    description_ar: Text.nullable(),
    image_url: ImageUrl,
    price: Minor,
    original_price: Minor.nullable(),
    available: z.boolean(),
    modifier_groups: z.array(ModifierGroupSchema).max(20),
  })
  .superRefine((item, ctx) => {
    if (item.original_price !== null && item.original_price <= item.price) {
      ctx.addIssue({
        code: 'custom',
        path: ['original_price'],
        message: 'original_price must exceed price (or be null)',
      });
    }
    reportDuplicates(
      item.modifier_groups.map((g) => g.id),
      ['modifier_groups'],
      'id',
      ctx,
    );
    // Orders name options by id alone, so option ids are unique across the item's groups.
    const options = item.modifier_groups.flatMap((g, gi) =>
      g.options.map((o, oi) => ({ id: o.id, path: ['modifier_groups', gi, 'options', oi, 'id'] })),
    );
    reportDuplicatePaths(options, ctx, 'option id repeated within the item');
  });

export const MenuCategorySchema = z.strictObject({
  id: Id,
  name: Name,
  name_ar: Name.nullable(),
  items: z.array(ItemSchema).max(1000),
});

/** close <= open: the span runs past midnight into the next day (equal: 24 hours). */
const SpanSchema = z.strictObject({ day: z.enum(WEEKDAYS), open: Hhmm, close: CloseHhmm });
export type OpeningSpan = z.infer<typeof SpanSchema>;

export const DeliveryZoneSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('radius'), radius_m: z.int().min(100).max(100_000) }),
  z.strictObject({
    type: z.literal('polygon'),
    points: z.array(PointSchema).min(3, 'a polygon needs at least 3 points').max(500),
  }),
]);
export type DeliveryZone = z.infer<typeof DeliveryZoneSchema>;

const FeeRulesSchema = z
  .array(z.strictObject({ up_to_m: z.int().min(1).max(200_000), fee: Minor }))
  .min(1)
  .max(20)
  .superRefine((rules, ctx) => {
    rules.forEach((rule, i) => {
      const prev = rules[i - 1];
      if (prev && rule.up_to_m <= prev.up_to_m)
        ctx.addIssue({ code: 'custom', path: [i, 'up_to_m'], message: 'up_to_m must increase from rule to rule' });
    });
  });

const ClosuresSchema = z
  .array(z.strictObject({ date: IsoDate, reason: z.string().max(200) }))
  .max(400)
  .superRefine((closures, ctx) =>
    reportDuplicates(
      closures.map((c) => c.date),
      [],
      'date',
      ctx,
    ),
  );

const MenuSchema = z.strictObject({ categories: z.array(MenuCategorySchema).max(100) }).superRefine((menu, ctx) => {
  reportDuplicates(
    menu.categories.map((c) => c.id),
    ['categories'],
    'id',
    ctx,
  );
  const items = menu.categories.flatMap((c, ci) =>
    c.items.map((it, ii) => ({ id: it.id, path: ['categories', ci, 'items', ii, 'id'] })),
  );
  reportDuplicatePaths(items, ctx, 'item id repeated within the store');
});

// Checks across fields sit on the smallest enclosing schema: zod skips a refinement when
// anything inside it failed, so this way one bad field elsewhere does not hide them.
export const StoreSchema = z.strictObject({
  id: Id,
  name: Name,
  name_ar: Name.nullable(),
  vertical: z.enum(VERTICALS),
  description: Text,
  description_ar: Text.nullable(),
  image_url: ImageUrl,
  location: PointSchema,
  address: z.strictObject({
    line1: Name,
    area: Name,
    city: Name,
    country: z.string().regex(/^[A-Z]{2}$/, 'ISO 3166 alpha-2 code'),
  }),
  time_zone: z.string().refine(isValidTimeZone, 'unknown IANA time zone'),
  opening_hours: z.array(SpanSchema).max(50),
  closures: ClosuresSchema,
  snoozed_until: IsoInstant.nullable(),
  busy: z.boolean(),
  accepting_orders: z.boolean(),
  auto_accept: z.boolean(),
  delivery_zone: DeliveryZoneSchema,
  delivery_fee_rules: FeeRulesSchema,
  minimum_order: Minor,
  currency: z.enum(CURRENCIES),
  prep_time_min: z.int().min(1).max(240),
  category_ids: z.array(Id).max(20),
  menu: MenuSchema,
});

export const CategorySchema = z.strictObject({ id: Id, name: Name, name_ar: Name.nullable(), image_url: ImageUrl });

export const OFFER_KINDS = ['percent', 'fixed', 'free_delivery'] as const;

export const OfferSchema = z
  .strictObject({
    id: Id,
    scope: z.enum(['platform', 'store']),
    store_id: Id.optional(),
    title: Name,
    title_ar: Name.nullable(),
    kind: z.enum(OFFER_KINDS),
    /** percent offers: basis points, 1000 = 10%. */
    percent_bp: z.int().min(1).max(10_000).optional(),
    /** fixed offers: minor units of `currency`. */
    amount: Minor.optional(),
    /** Currency of amount/min_subtotal/max_discount; the offer applies only to stores in it. */
    currency: z.enum(CURRENCIES).nullable(),
    min_subtotal: Minor,
    max_discount: Minor.nullable(),
    starts_at: IsoInstant,
    ends_at: IsoInstant,
    /** null: applied automatically; otherwise redeemed by entering this code (case-insensitive). */
    promo_code: z
      .string()
      .regex(/^[A-Za-z0-9_-]{3,32}$/, 'promo code: 3-32 of A-Z 0-9 _ -')
      .nullable(),
    verticals: z.array(z.enum(VERTICALS)).min(1).optional(),
    cities: z.array(Name).min(1).optional(),
  })
  .superRefine((o, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (o.scope === 'store' && o.store_id === undefined) issue('store_id', 'a store offer needs store_id');
    if (o.scope === 'platform' && o.store_id !== undefined) issue('store_id', 'a platform offer has no store_id');
    if ((o.kind === 'percent') !== (o.percent_bp !== undefined))
      issue('percent_bp', 'percent_bp is set exactly for percent offers');
    if ((o.kind === 'fixed') !== (o.amount !== undefined)) issue('amount', 'amount is set exactly for fixed offers');
    const hasMoney = o.kind === 'fixed' || o.min_subtotal > 0 || o.max_discount !== null;
    if (hasMoney && o.currency === null) issue('currency', 'currency is required when the offer has amounts');
    if (Date.parse(o.ends_at) <= Date.parse(o.starts_at)) issue('ends_at', 'ends_at must be after starts_at');
  });

export const CatalogSchema = z.strictObject({
  /** A label for this snapshot (shown by `catalog stats`), e.g. `demo-2026.11`. */
  version: z.string().min(1).max(64),
  stores: z.array(StoreSchema).max(20_000),
  categories: z.array(CategorySchema).max(200),
  offers: z.array(OfferSchema).max(5_000),
});

export type Catalog = z.infer<typeof CatalogSchema>;
export type Store = z.infer<typeof StoreSchema>;
export type MenuCategory = z.infer<typeof MenuCategorySchema>;
export type Item = z.infer<typeof ItemSchema>;
export type ModifierGroup = z.infer<typeof ModifierGroupSchema>;
export type ModifierOption = z.infer<typeof OptionSchema>;
export type Category = z.infer<typeof CategorySchema>;
export type Offer = z.infer<typeof OfferSchema>;

type Ctx = z.core.$RefinementCtx;
type Path = (string | number)[];

function reportDuplicates(values: string[], at: Path, field: string, ctx: Ctx): void {
  reportDuplicatePaths(
    values.map((id, i) => ({ id, path: [...at, i, field] })),
    ctx,
    `${field} repeated`,
  );
}

function reportDuplicatePaths(entries: { id: string; path: Path }[], ctx: Ctx, message: string): void {
  const seen = new Set<string>();
  for (const { id, path } of entries) {
    if (seen.has(id)) ctx.addIssue({ code: 'custom', path, message: `${message}: ${id}` });
    seen.add(id);
  }
}

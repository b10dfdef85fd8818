/**
 * Builds the demo catalog from the store definitions and menu templates. Deterministic: every
 * "random" choice comes from a generator seeded by the store id, so the output never changes
 * unless the definitions do (a test checks demo-catalog.json against this function).
 */
import type { Catalog, DeliveryZone, Item, ModifierGroup, Point, Store } from '../domain/catalog/model.js';
import type { Currency } from '../domain/money.js';
import { HOURS } from './hours.js';
import { DUBAI, KUWAIT, type City } from './places.js';
import { CATEGORIES, OFFERS } from './promotions.js';
import { DUBAI_STORES, KUWAIT_STORES, type StoreDef } from './stores.js';
import { GROUPS, type OptionPrice } from './templates/groups.js';
import type { ItemTpl } from './templates/types.js';

export const DEMO_CATALOG_VERSION = 'demo-2026.11';
const CDN = 'https://images.example-cdn.com';

export function buildDemoCatalog(): Catalog {
  const stores = [...KUWAIT_STORES.map((d) => buildStore(d, KUWAIT)), ...DUBAI_STORES.map((d) => buildStore(d, DUBAI))];
  return { version: DEMO_CATALOG_VERSION, stores, categories: CATEGORIES, offers: OFFERS };
}

/** The exact text committed as demo-catalog.json. */
export function demoCatalogText(): string {
  return `${JSON.stringify(buildDemoCatalog(), null, 1)}\n`;
}

function buildStore(def: StoreDef, city: City): Store {
  const rng = seeded(def.id);
  const area = city.areas[def.area];
  if (!area) throw new Error(`${def.id}: unknown area ${def.area}`);
  const location = { lat: round6(area.lat + (rng() - 0.5) * 0.012), lng: round6(area.lng + (rng() - 0.5) * 0.012) };
  const vertical = def.tpl.key === 'pharmacy' || def.tpl.key === 'grocery' ? def.tpl.key : 'restaurant';
  const street = area.streets[Math.floor(rng() * area.streets.length)]!;
  return {
    id: def.id,
    name: def.name,
    name_ar: def.nameAr,
    vertical,
    description: def.tpl.tagline.replace('{area}', area.name),
    description_ar: def.nameAr === null ? null : def.tpl.taglineAr.replace('{area}', area.nameAr),
    image_url: `${CDN}/stores/${def.id}/cover.jpg`,
    location,
    address: {
      line1: `${street}, Building ${1 + Math.floor(rng() * 60)}`,
      area: area.name,
      city: city.name,
      country: city.country,
    },
    time_zone: city.timeZone,
    opening_hours: HOURS[def.hours].map((span) => ({ ...span })),
    closures: (def.closures ?? []).map(([date, reason]) => ({ date, reason })),
    snoozed_until: def.snoozedUntil ?? null,
    busy: def.busy ?? false,
    accepting_orders: def.acceptingOrders ?? true,
    auto_accept: def.hours === '24h' || rng() < 0.5,
    delivery_zone: def.zone === 'polygon' ? hexagon(location, rng) : { type: 'radius', radius_m: def.zone },
    delivery_fee_rules: feeRules(city.currency, rng() < 0.5),
    minimum_order: minimumOrder(vertical, city.currency, rng),
    currency: city.currency,
    prep_time_min: def.tpl.prepMin + Math.floor(rng() * 6),
    category_ids: [...def.tpl.categoryIds],
    menu: {
      categories: def.tpl.sections.map((sec) => ({
        id: sec.id,
        name: sec.name,
        name_ar: def.nameAr === null ? null : sec.nameAr,
        items: sectionItems(sec.items, def, city.currency, rng),
      })),
    },
  };
}

function sectionItems(tpls: ItemTpl[], def: StoreDef, currency: Currency, rng: () => number): Item[] {
  const forced = (slug: string) => def.discounted?.includes(slug) || def.soldOut?.includes(slug);
  // Stores of one kind differ: each drops a few dishes (never a forced one, never a whole section).
  const kept = tpls.filter((t) => forced(t[0]) || rng() >= 0.12);
  return (kept.length > 0 ? kept : tpls.slice(0, 1)).map((t) => buildItem(t, def, currency, rng));
}

function buildItem(
  [slug, name, nameAr, description, descriptionAr, fils, groups = []]: ItemTpl,
  def: StoreDef,
  currency: Currency,
  rng: () => number,
): Item {
  const price = convert(fils, currency, Math.floor(rng() * 26) - 10);
  const discounted = def.discounted?.includes(slug) || (!def.soldOut?.includes(slug) && rng() < 0.12);
  const arabic = def.nameAr !== null;
  return {
    id: slug,
    name,
    name_ar: arabic ? nameAr : null,
    description,
    description_ar: arabic && rng() >= 0.08 ? descriptionAr : null,
    image_url: `${CDN}/stores/${def.id}/items/${slug}.jpg`,
    price,
    original_price: discounted
      ? price + Math.max(50, roundTo(price * (15 + Math.floor(rng() * 21)), 100 * 50) / 100)
      : null,
    available: def.soldOut?.includes(slug) ? false : def.discounted?.includes(slug) || rng() >= 0.07,
    modifier_groups: groups.map((key) => buildGroup(key, price, currency, arabic)),
  };
}

function buildGroup(key: keyof typeof GROUPS, itemPrice: number, currency: Currency, arabic: boolean): ModifierGroup {
  const g = GROUPS[key];
  const optionPrice = (p: OptionPrice) => (typeof p === 'number' ? convert(p, currency, 0) : itemPrice * p.times);
  return {
    id: g.id,
    name: g.name,
    name_ar: arabic ? g.nameAr : null,
    required: g.required,
    min_select: g.min,
    max_select: g.max,
    options: g.options.map(([id, name, nameAr, p]) => ({
      id,
      name,
      name_ar: arabic ? nameAr : null,
      price: optionPrice(p),
    })),
  };
}

/** Fils -> the currency's minor units (1 KWD ~ 12 AED), moved by pct percent, rounded to 50 minor units. */
function convert(fils: number, currency: Currency, pct: number): number {
  if (fils === 0) return 0;
  const [mul, div] = currency === 'KWD' ? [1, 1] : [12, 10];
  return Math.max(50, roundTo(fils * (100 + pct) * mul, 100 * div * 50) / (100 * div));
}

/** n rounded half up to a multiple of step, both integers; result in the units of n. */
function roundTo(n: number, step: number): number {
  return Math.floor((n + step / 2) / step) * step;
}

function feeRules(currency: Currency, freeNearby: boolean): Store['delivery_fee_rules'] {
  if (currency === 'KWD') {
    return freeNearby
      ? [
          { up_to_m: 3000, fee: 0 },
          { up_to_m: 6000, fee: 500 },
          { up_to_m: 10000, fee: 1000 },
        ]
      : [
          { up_to_m: 2000, fee: 250 },
          { up_to_m: 5000, fee: 500 },
          { up_to_m: 9000, fee: 750 },
        ];
  }
  return freeNearby
    ? [
        { up_to_m: 5000, fee: 0 },
        { up_to_m: 10000, fee: 700 },
        { up_to_m: 15000, fee: 1200 },
      ]
    : [
        { up_to_m: 3000, fee: 500 },
        { up_to_m: 7000, fee: 900 },
        { up_to_m: 12000, fee: 1500 },
      ];
}

function minimumOrder(vertical: Store['vertical'], currency: Currency, rng: () => number): number {
  const kwd = currency === 'KWD';
  if (vertical === 'pharmacy') return kwd ? 1000 : 2000;
  if (vertical === 'grocery') return kwd ? 3000 : 5000;
  const choices = kwd ? [2000, 2500, 3000] : [2500, 3000, 4000];
  return choices[Math.floor(rng() * choices.length)]!;
}

/** An irregular hexagon of 2.5-5 km "radius" around the store (star-shaped, so it contains it). */
function hexagon(center: Point, rng: () => number): DeliveryZone {
  const points = Array.from({ length: 6 }, (_, k) => {
    const angle = ((k * 60 + (rng() - 0.5) * 20) * Math.PI) / 180;
    const r = 2500 + rng() * 2500;
    const lat = center.lat + (r * Math.cos(angle)) / 111_320;
    const lng = center.lng + (r * Math.sin(angle)) / (111_320 * Math.cos((center.lat * Math.PI) / 180));
    return { lat: round6(lat), lng: round6(lng) };
  });
  return { type: 'polygon', points };
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** mulberry32 seeded by FNV-1a of the text. */
function seeded(text: string): () => number {
  let a = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) a = Math.imul(a ^ text.charCodeAt(i), 0x01000193);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

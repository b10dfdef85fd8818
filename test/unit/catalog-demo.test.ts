// The demo catalog shipped in the repository: valid, in sync with its generator, and meeting
// the catalog issue's checklist whatever the clock says.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoCatalogText } from '../../src/catalog-data/build.js';
import { demoCatalogSourcePath, loadDemoCatalog } from '../../src/catalog-data/demo.js';
import { CatalogIndex } from '../../src/domain/catalog/catalog-index.js';
import { inDeliveryZone } from '../../src/domain/catalog/geo.js';
import { minutesOf } from '../../src/domain/catalog/local-time.js';
import { VERTICALS, type Store } from '../../src/domain/catalog/model.js';
import { storeStatus } from '../../src/domain/catalog/status.js';
import { validateCatalog } from '../../src/domain/catalog/validate.js';
import { decimalsOf } from '../../src/domain/money.js';

const catalog = loadDemoCatalog();
const index = new CatalogIndex(catalog);
const items = catalog.stores.flatMap((s) => s.menu.categories.flatMap((c) => c.items));
// Every 30 minutes over 8 days, starting at an odd minute so that no instant is "special".
const INSTANTS = Array.from(
  { length: 8 * 48 },
  (_, i) => new Date(Date.parse('2026-11-20T00:07:00Z') + i * 30 * 60_000),
);
const alwaysOpen = (s: Store) =>
  INSTANTS.every((at) => storeStatus(s, at).status === 'open' && storeStatus(s, at).accepting_orders);
const alwaysClosed = (s: Store) => INSTANTS.every((at) => storeStatus(s, at).status === 'closed');

describe('demo catalog', () => {
  it('is exactly what the generator builds (regenerate with src/catalog-data/generate.ts)', () => {
    // Compared as text so that any drift shows; regenerating is one command (docs/catalog.md).
    expect(readFileSync(demoCatalogSourcePath(), 'utf8') === demoCatalogText()).toBe(true);
  });

  it('passes validation', () => {
    const r = validateCatalog(JSON.parse(readFileSync(demoCatalogSourcePath(), 'utf8')));
    expect(r.ok ? [] : r.problems).toEqual([]);
  });

  it('has at least 60 stores over all three verticals', () => {
    expect(catalog.stores.length).toBeGreaterThanOrEqual(60);
    for (const v of VERTICALS) expect(catalog.stores.filter((s) => s.vertical === v).length).toBeGreaterThanOrEqual(10);
  });

  it('spans two cities with different currencies, one with 3 decimals, each in its own time zone', () => {
    const cities = new Map(catalog.stores.map((s) => [s.address.city, `${s.currency} ${s.time_zone}`]));
    expect(Object.fromEntries(cities)).toEqual({ 'Kuwait City': 'KWD Asia/Kuwait', Dubai: 'AED Asia/Dubai' });
    expect(decimalsOf('KWD')).toBe(3);
    for (const s of catalog.stores) {
      const inKuwait = s.location.lat > 28.5 && s.location.lat < 30.1 && s.location.lng > 46.5 && s.location.lng < 48.5;
      const inDubai = s.location.lat > 24.8 && s.location.lat < 25.4 && s.location.lng > 54.9 && s.location.lng < 55.6;
      expect(s.currency === 'KWD' ? inKuwait : inDubai, s.id).toBe(true);
    }
  });

  it('has Arabic for most stores and items, and none for some', () => {
    const arabicStores = catalog.stores.filter((s) => s.name_ar !== null).length;
    expect(arabicStores / catalog.stores.length).toBeGreaterThan(0.75);
    expect(arabicStores).toBeLessThan(catalog.stores.length);
    expect(items.filter((i) => i.name_ar !== null).length / items.length).toBeGreaterThan(0.75);
    expect(items.some((i) => i.name_ar !== null && i.description_ar === null)).toBe(true);
  });

  it('has discounted, sold-out, and required and optional modifier choices', () => {
    expect(items.filter((i) => i.original_price !== null).length).toBeGreaterThan(20);
    expect(items.filter((i) => !i.available).length).toBeGreaterThan(10);
    const groups = items.flatMap((i) => i.modifier_groups);
    expect(groups.some((g) => g.required && g.min_select === 1 && g.max_select === 1)).toBe(true);
    expect(groups.some((g) => !g.required && g.max_select === null)).toBe(true);
    expect(groups.some((g) => !g.required && g.max_select !== null && g.max_select > 1)).toBe(true);
  });

  it('has overnight hours, busy stores, dated closures, both zone kinds and fee rules', () => {
    const overnight = catalog.stores.filter((s) =>
      s.opening_hours.some((h) => h.close !== '24:00' && minutesOf(h.close) <= minutesOf(h.open)),
    );
    expect(overnight.length).toBeGreaterThan(5);
    expect(catalog.stores.filter((s) => s.busy).length).toBeGreaterThanOrEqual(3);
    expect(catalog.stores.some((s) => s.closures.length > 0)).toBe(true);
    const polygons = catalog.stores.filter((s) => s.delivery_zone.type === 'polygon');
    expect(polygons.length).toBeGreaterThanOrEqual(5);
    for (const s of polygons) expect(inDeliveryZone(s, s.location), s.id).toBe(true);
    expect(catalog.stores.some((s) => s.delivery_zone.type === 'radius')).toBe(true);
  });

  it('in every vertical, has a store open around the clock and one closed whatever the time', () => {
    for (const v of VERTICALS) {
      const stores = catalog.stores.filter((s) => s.vertical === v);
      expect(stores.filter(alwaysOpen).length, `${v} always open`).toBeGreaterThanOrEqual(1);
      expect(stores.filter(alwaysClosed).length, `${v} always closed`).toBeGreaterThanOrEqual(1);
    }
  });

  it('has active, expired and not-yet-started offers, both automatic and promo codes', () => {
    const state = (o: (typeof catalog.offers)[number]) =>
      Date.parse(o.ends_at) < Date.parse('2021-01-01')
        ? 'expired'
        : Date.parse(o.starts_at) > Date.parse('2098-01-01')
          ? 'future'
          : 'active';
    const kinds = new Set(catalog.offers.map((o) => `${o.promo_code === null ? 'auto' : 'code'} ${state(o)}`));
    expect([...kinds].sort()).toEqual([
      'auto active',
      'auto expired',
      'auto future',
      'code active',
      'code expired',
      'code future',
    ]);
    expect(new Set(catalog.offers.map((o) => o.kind))).toEqual(new Set(['percent', 'fixed', 'free_delivery']));
  });

  describe('the ids documented in docs/catalog.md', () => {
    const at = new Date('2026-11-23T09:00:00Z');

    it('kw-shawarma-reem: a 24/7 KWD restaurant with a discounted and a sold-out item', () => {
      const reem = index.requireStore('kw-shawarma-reem');
      expect(reem).toMatchObject({ vertical: 'restaurant', currency: 'KWD', name_ar: 'شاورما الريم' });
      expect(alwaysOpen(reem)).toBe(true);
      expect(index.requireItem('kw-shawarma-reem', 'arabi-shawarma-platter').original_price).not.toBeNull();
      expect(index.requireItem('kw-shawarma-reem', 'fresh-lemon-mint').available).toBe(false);
      expect(
        index.requireItem('kw-shawarma-reem', 'chicken-shawarma-wrap').modifier_groups.map((g) => g.required),
      ).toEqual([true, false]);
    });

    it('the other well-known stores behave as documented', () => {
      expect(alwaysOpen(index.requireStore('dxb-shawarma-station'))).toBe(true);
      expect(index.requireStore('dxb-shawarma-station').currency).toBe('AED');
      for (const id of ['kw-mutawa-pharmacy', 'dxb-life-care', 'kw-sultan-express', 'dxb-marina-mini-mart'])
        expect(alwaysOpen(index.requireStore(id)), id).toBe(true);
      for (const id of [
        'kw-boom-seafood',
        'kw-rawda-pharmacy',
        'dxb-oasis-care',
        'kw-mishref-market',
        'dxb-burger-yard',
      ])
        expect(alwaysClosed(index.requireStore(id)), id).toBe(true);
      expect(INSTANTS.every((t) => storeStatus(index.requireStore('kw-karak-corner'), t).status === 'busy')).toBe(true);
      expect(
        INSTANTS.every((t) => storeStatus(index.requireStore('dxb-karama-tea'), t).accepting_orders === false),
      ).toBe(true);
      expect(
        index.status(index.requireStore('kw-machboos-diwaniya'), new Date('2027-02-25T12:00:00+03:00')).closed_reason,
      ).toBe('closure');
      expect(index.validatePromo('REEM5', 'kw-shawarma-reem', { subtotal: 3000, delivery_fee: 0 }, at)).toMatchObject({
        valid: true,
        discount: 500,
      });
    });

    it('Arabic search finds the Arabic names', () => {
      const r = index.search({ q: 'شاورما', limit: 10 }, at);
      expect(r.stores.map((h) => h.store.id)).toEqual(
        expect.arrayContaining(['kw-shawarma-reem', 'dxb-shawarma-station']),
      );
      expect(r.items.length).toBeGreaterThan(0);
    });
  });
});

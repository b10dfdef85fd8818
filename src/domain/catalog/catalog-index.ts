/**
 * The read side of the catalog: built once from a validated Catalog, then every read
 * (lookups, listing, search, quotes, offers, promo checks) is answered from memory.
 * Immutable: a new import builds a new index and swaps it in.
 */
import { ApiError } from '../errors.js';
import { deliveryQuote, type DeliveryQuote } from './geo.js';
import type { Catalog, Category, Item, Offer, Point, Store, Vertical } from './model.js';
import {
  activeOffers,
  bestAutomaticOffer,
  isActive,
  promoKey,
  storeOffers,
  validatePromo,
  orderDiscount,
  type OrderDiscount,
  type AppliedOffer,
  type Basket,
  type PromoValidation,
} from './offers.js';
import { BoundedMemo } from './bounded-memo.js';
import {
  indexStore,
  listStores,
  matchCatalog,
  searchCatalog,
  type IndexedItem,
  type IndexedStore,
  type Page,
  type SearchQuery,
  type SearchResult,
  type StoreHit,
  type StoreListQuery,
  type TextMatch,
} from './search.js';
import { memoisedStatus, type StoreStatus } from './status.js';
import { parseCatalog } from './validate.js';

export interface CatalogStats {
  version: string;
  stores: number;
  stores_by_vertical: Record<Vertical, number>;
  stores_by_city: Record<string, number>;
  items: number;
  sold_out_items: number;
  categories: number;
  offers: number;
  promo_codes: number;
  active_offers: number;
}

export class CatalogIndex {
  readonly catalog: Catalog;
  private readonly entries: IndexedStore[];
  private readonly byId = new Map<string, IndexedStore>();
  private readonly items = new Map<string, Map<string, IndexedItem>>();
  private readonly byCode = new Map<string, Offer>();
  /** Statuses are asked for constantly and change at most once a minute. */
  private readonly statusOf = memoisedStatus();
  /**
   * The text matches of recent search queries: they depend only on this (immutable) catalog and
   * the query text, so a new import, which builds a new index, starts with an empty memo. Bounded
   * by queries and by matched stores + items held.
   */
  private readonly textMatches = new BoundedMemo<readonly TextMatch[]>({
    maxEntries: 1000,
    maxWeight: 100_000,
    weigh: (matches) => matches.reduce((n, m) => n + 1 + m.items.length, 0),
  });
  private readonly matchText = (text: string) => this.textMatches.get(text, () => matchCatalog(this.entries, text));

  constructor(catalog: Catalog) {
    this.catalog = catalog;
    this.entries = catalog.stores.map(indexStore);
    for (const entry of this.entries) {
      this.byId.set(entry.store.id, entry);
      this.items.set(entry.store.id, new Map(entry.items.map((it) => [it.item.id, it])));
    }
    for (const offer of catalog.offers) {
      if (offer.promo_code !== null) this.byCode.set(promoKey(offer.promo_code), offer);
    }
  }

  /** Validates first; throws naming the problems when the document is not a valid catalog. */
  static fromJson(json: unknown): CatalogIndex {
    return new CatalogIndex(parseCatalog(json));
  }

  get version(): string {
    return this.catalog.version;
  }

  get categories(): readonly Category[] {
    return this.catalog.categories;
  }

  get stores(): readonly Store[] {
    return this.catalog.stores;
  }

  store(id: string): Store | undefined {
    return this.byId.get(id)?.store;
  }

  /** The store, or ApiError store_not_found (404). */
  requireStore(id: string): Store {
    const store = this.store(id);
    if (!store) throw new ApiError('store_not_found', `No store with id ${id}.`, { param: 'store_id' });
    return store;
  }

  item(storeId: string, itemId: string): Item | undefined {
    return this.items.get(storeId)?.get(itemId)?.item;
  }

  /** The item, or ApiError store_not_found / item_not_found (404). */
  requireItem(storeId: string, itemId: string): Item {
    this.requireStore(storeId);
    const item = this.item(storeId, itemId);
    if (!item)
      throw new ApiError('item_not_found', `No item with id ${itemId} in store ${storeId}.`, { param: 'item_id' });
    return item;
  }

  status(store: Store, at: Date): StoreStatus {
    return this.statusOf(store, at);
  }

  listStores(query: StoreListQuery, at: Date): Page<StoreHit> {
    return listStores(this.entries, query, at, this.statusOf);
  }

  search(query: SearchQuery, at: Date): SearchResult {
    return searchCatalog(this.entries, query, at, this.statusOf, this.matchText);
  }

  deliveryQuote(storeId: string, point: Point, at: Date): DeliveryQuote {
    return deliveryQuote(this.requireStore(storeId), point, at, this.statusOf);
  }

  /** Live offers; with a point, only those redeemable at a store delivering there. */
  offers(at: Date, point?: Point): Offer[] {
    if (!point) return activeOffers(this.catalog.offers, null, at);
    const reachable = listStores(
      this.entries,
      { point, page: 1, limit: Number.MAX_SAFE_INTEGER },
      at,
      this.statusOf,
    ).data.map((h) => h.store);
    return activeOffers(this.catalog.offers, reachable, at);
  }

  storeOffers(storeId: string, at: Date): Offer[] {
    return storeOffers(this.catalog.offers, this.requireStore(storeId), at);
  }

  validatePromo(code: string, storeId: string, basket: Basket, at: Date): PromoValidation {
    return validatePromo(this.byCode, code, this.requireStore(storeId), basket, at);
  }

  /** The better of the code (if any) and the best automatic offer: what an order is charged (see offers.ts). */
  orderDiscount(code: string | undefined, storeId: string, basket: Basket, at: Date): OrderDiscount {
    return orderDiscount(this.catalog.offers, this.byCode, code, this.requireStore(storeId), basket, at);
  }

  bestAutomaticOffer(storeId: string, basket: Basket, at: Date): AppliedOffer | null {
    return bestAutomaticOffer(this.catalog.offers, this.requireStore(storeId), basket, at);
  }

  stats(at: Date): CatalogStats {
    const byVertical: Record<Vertical, number> = { restaurant: 0, pharmacy: 0, grocery: 0 };
    const byCity: Record<string, number> = {};
    let items = 0;
    let soldOut = 0;
    for (const entry of this.entries) {
      byVertical[entry.store.vertical] += 1;
      byCity[entry.store.address.city] = (byCity[entry.store.address.city] ?? 0) + 1;
      items += entry.items.length;
      soldOut += entry.items.filter((it) => !it.item.available).length;
    }
    return {
      version: this.catalog.version,
      stores: this.entries.length,
      stores_by_vertical: byVertical,
      stores_by_city: byCity,
      items,
      sold_out_items: soldOut,
      categories: this.catalog.categories.length,
      offers: this.catalog.offers.length,
      promo_codes: this.byCode.size,
      active_offers: this.catalog.offers.filter((o) => isActive(o, at)).length,
    };
  }
}

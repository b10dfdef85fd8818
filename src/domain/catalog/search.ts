/**
 * Store listing and search over pre-normalised entries (built once per catalog by CatalogIndex).
 * Ordering: with a point, only stores delivering there, nearest first; with a query, best
 * match first; ties by name then id so every page is stable.
 */
import { distanceMetres, inDeliveryZone } from './geo.js';
import type { Item, Point, Store, Vertical } from './model.js';
import { storeStatus, type StatusFn, type StoreStatus, type StoreStatusValue } from './status.js';
import { bestRank, matchForms, normalise, requiredFragment } from './text.js';
import { extend } from '../../shared/objects.js';

export interface IndexedItem {
  item: Item;
  category_id: string;
  keys: string[];
  /** All keys joined, for a one-call pre-check (see requiredFragment). */
  haystack: string;
  sortKey: string;
}

export interface IndexedStore {
  store: Store;
  keys: string[];
  /** Normalised name: ordering by it needs no collator. */
  sortKey: string;
  items: IndexedItem[];
}

export function indexStore(store: Store): IndexedStore {
  const items = store.menu.categories.flatMap((c) =>
    c.items.map((item) => {
      const keys = nameKeys(item);
      return { item, category_id: c.id, keys, haystack: keys.join('|'), sortKey: normalise(item.name) };
    }),
  );
  return { store, keys: nameKeys(store), sortKey: normalise(store.name), items };
}

function nameKeys(x: { name: string; name_ar: string | null }): string[] {
  return x.name_ar === null ? matchForms(x.name) : [...matchForms(x.name), ...matchForms(x.name_ar)];
}

export interface StoreHit {
  store: Store;
  status: StoreStatus;
  /** Metres from the query point; null when no point was given. */
  distance_m: number | null;
}

export interface StoreListQuery {
  q?: string | undefined;
  vertical?: Vertical | undefined;
  status?: StoreStatusValue | undefined;
  point?: Point | undefined;
  /** 1-based. */
  page: number;
  limit: number;
}

export interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  total: number;
  has_more: boolean;
}

interface Ranked<T> {
  hit: T;
  rank: number;
  distance: number | null;
  name: string;
  id: string;
}

export function listStores(
  entries: readonly IndexedStore[],
  query: StoreListQuery,
  at: Date,
  statusOf: StatusFn = storeStatus,
): Page<StoreHit> {
  const q = query.q === undefined ? null : matchForms(query.q);
  if (q !== null && q[0] === '') return page([], query); // only punctuation: matches nothing
  const ranked: Ranked<{ store: Store; status: StoreStatus | null; distance_m: number | null }>[] = [];
  for (const entry of entries) {
    const { store } = entry;
    if (query.vertical !== undefined && store.vertical !== query.vertical) continue;
    const rank = q === null ? 0 : bestRank(entry.keys, q);
    if (rank === null) continue;
    const distance = reachDistance(store, query.point);
    if (distance === undefined) continue;
    // Status costs time-zone arithmetic: work it out here only when filtering on it.
    const status = query.status === undefined ? null : statusOf(store, at);
    if (status && status.status !== query.status) continue;
    ranked.push({ hit: { store, status, distance_m: distance }, rank, distance, name: entry.sortKey, id: store.id });
  }
  const order = query.point ? byDistanceThenRank : byRankThenDistance;
  const result = page(
    ranked.sort(order).map((r) => r.hit),
    query,
  );
  return extend(result, { data: result.data.map((h) => extend(h, { status: h.status ?? statusOf(h.store, at) })) });
}

export interface ItemHit {
  item: Item;
  store: Store;
  category_id: string;
  distance_m: number | null;
}

export interface SearchQuery {
  q: string;
  point?: Point | undefined;
  /** Per result type. */
  limit: number;
}

export interface SearchResult {
  stores: StoreHit[];
  items: ItemHit[];
}

/** A store whose name or items match a query's text, whatever the point. */
export interface TextMatch {
  entry: IndexedStore;
  /** Rank of the store's own name; null when only items match. */
  rank: number | null;
  /** Matching items, in menu order; rank already puts sold-out after available (see searchCatalog). */
  items: { indexed: IndexedItem; rank: number; id: string }[];
}

/**
 * The text half of a search: depends only on the catalog and the query, so CatalogIndex can keep
 * it for repeated queries. In catalog order, only stores with a match.
 */
export function matchCatalog(entries: readonly IndexedStore[], text: string): TextMatch[] {
  const q = matchForms(text);
  if (q[0] === '') return [];
  const fragment = requiredFragment(q);
  const out: TextMatch[] = [];
  for (const entry of entries) {
    const rank = bestRank(entry.keys, q);
    const items: TextMatch['items'] = [];
    for (const it of entry.items) {
      if (!it.haystack.includes(fragment)) continue;
      const itemRank = bestRank(it.keys, q);
      if (itemRank === null) continue;
      // Sold-out items sort after every available match of the same quality.
      items.push({
        indexed: it,
        rank: itemRank * 2 + (it.item.available ? 0 : 1),
        id: `${entry.store.id}/${it.item.id}`,
      });
    }
    if (rank !== null || items.length > 0) out.push({ entry, rank, items });
  }
  return out;
}

export type MatchFn = (text: string) => readonly TextMatch[];

/**
 * Stores and items whose names match; items of sold-out state rank after available ones.
 * `match` gives the text matches (CatalogIndex passes a memo of matchCatalog); only the stores
 * among them are then checked against the point.
 */
export function searchCatalog(
  entries: readonly IndexedStore[],
  query: SearchQuery,
  at: Date,
  statusOf: StatusFn = storeStatus,
  match: MatchFn = (text) => matchCatalog(entries, text),
): SearchResult {
  const stores: Ranked<Store>[] = [];
  const items: Ranked<ItemHit>[] = [];
  for (const m of match(query.q)) {
    const { store } = m.entry;
    const distance = reachDistance(store, query.point);
    if (distance === undefined) continue;
    if (m.rank !== null) stores.push({ hit: store, rank: m.rank, distance, name: m.entry.sortKey, id: store.id });
    for (const { indexed, rank, id } of m.items) {
      const hit = { item: indexed.item, store, category_id: indexed.category_id, distance_m: distance };
      items.push({ hit, rank, distance, name: indexed.sortKey, id });
    }
  }
  return {
    stores: stores
      .sort(byRankThenDistance)
      .slice(0, query.limit)
      .map((r) => ({ store: r.hit, status: statusOf(r.hit, at), distance_m: r.distance })),
    items: items
      .sort(byRankThenDistance)
      .slice(0, query.limit)
      .map((r) => r.hit),
  };
}

/** Distance to the point when the store delivers there, null without a point, undefined when it does not deliver. */
function reachDistance(store: Store, point: Point | undefined): number | null | undefined {
  if (!point) return null;
  const distance = distanceMetres(store.location, point);
  return inDeliveryZone(store, point, distance) ? distance : undefined;
}

function page<T>(all: T[], query: { page: number; limit: number }): Page<T> {
  const start = (query.page - 1) * query.limit;
  const data = all.slice(start, start + query.limit);
  return { data, page: query.page, limit: query.limit, total: all.length, has_more: start + data.length < all.length };
}

function byRankThenDistance<T>(a: Ranked<T>, b: Ranked<T>): number {
  return a.rank - b.rank || (a.distance ?? 0) - (b.distance ?? 0) || byName(a, b);
}

function byDistanceThenRank<T>(a: Ranked<T>, b: Ranked<T>): number {
  return (a.distance ?? 0) - (b.distance ?? 0) || a.rank - b.rank || byName(a, b);
}

/** `name` holds the normalised name, so plain comparison is case- and accent-blind. */
function byName<T>(a: Ranked<T>, b: Ranked<T>): number {
  return (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

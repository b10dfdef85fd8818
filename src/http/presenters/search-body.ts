/**
 * The JSON envelope of GET /v1/search, byte for byte what JSON.stringify gives for
 * `{ data: { stores: [toStoreBrief...], items: [{ ...toItem, store: {id, name, status} }...] } }`.
 * An item's own fields depend only on the item, its category and the store's currency, all fixed
 * within one catalog index, so each item's JSON is written once and reused: presenting and
 * serialising ten items is otherwise a large share of a search answer's CPU. Kept in a WeakMap
 * keyed by the item object: an import builds new item objects, so entries of an old catalog go
 * with it, and there is at most one string per item of the current catalog.
 */
import type { Item, Store } from '../../domain/catalog/model.js';
import type { SearchResult } from '../../domain/catalog/search.js';
import type { StoreStatus } from '../../domain/catalog/status.js';
import { toItem, toStoreBrief } from './catalog.js';

interface ItemJson {
  category_id: string;
  currency: Store['currency'];
  /** The item's JSON object without its closing brace, ready for `,"store":{...}}`. */
  open: string;
}

export class SearchBodyWriter {
  private readonly items = new WeakMap<Item, ItemJson>();

  body(result: SearchResult, statusOf: (store: Store) => StoreStatus): string {
    const stores = JSON.stringify(result.stores.map(toStoreBrief));
    const items = result.items.map((hit) => {
      const store = JSON.stringify({ id: hit.store.id, name: hit.store.name, status: statusOf(hit.store).status });
      return `${this.itemOpen(hit.item, hit.category_id, hit.store.currency)},"store":${store}}`;
    });
    return `{"data":{"stores":${stores},"items":[${items.join(',')}]}}`;
  }

  private itemOpen(item: Item, categoryId: string, currency: Store['currency']): string {
    const hit = this.items.get(item);
    if (hit && hit.category_id === categoryId && hit.currency === currency) return hit.open;
    const open = JSON.stringify(toItem(item, categoryId, currency)).slice(0, -1);
    this.items.set(item, { category_id: categoryId, currency, open });
    return open;
  }
}

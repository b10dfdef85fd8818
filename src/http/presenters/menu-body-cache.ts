/**
 * The bytes of GET /v1/stores/{id}/menu answers (and, for clients that accept gzip, the same bytes
 * gzipped), so a large menu is not rebuilt, serialised and compressed on every request
 * (serialising a large menu is otherwise the largest share of that route's CPU).
 *
 * A menu is a function of the store record and of the two time-dependent fields it shows,
 * `store.status` and `store.accepting_orders`. The store record is immutable within one catalog
 * index, and every catalog change (an import in this process, or the version poll picking up an
 * import by another process) swaps in a new index. So an entry is used only when it was built from
 * the same index object and for the same status and accepting_orders (today the latter follows
 * from the status and the store's flag; it is in the key so a new rule cannot make it stale); a new
 * index empties the cache. Nothing else (environment, partner, query) changes a menu. Bounded by total bytes, least
 * recently used out first.
 */
import { gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { Store } from '../../domain/catalog/model.js';
import type { StoreStatus } from '../../domain/catalog/status.js';
import { toMenu } from './catalog.js';

interface Entry {
  status: StoreStatus['status'];
  accepting: boolean;
  body: Buffer;
  /** The same bytes gzipped, made at the first request that accepts gzip. */
  gzipped?: Buffer;
}

export const DEFAULT_MENU_CACHE_BYTES = 32 * 1024 * 1024;

export class MenuBodyCache {
  private index: object | undefined;
  private readonly entries: LRUCache<string, Entry>;

  constructor(maxBytes = DEFAULT_MENU_CACHE_BYTES) {
    // A body larger than the whole bound is served but not kept.
    this.entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      sizeCalculation: (e) => Math.max(1, e.body.length + (e.gzipped?.length ?? 0)),
    });
  }

  /** The JSON envelope `{"data": menu}` of `store` as served from `index` with `status`. */
  body(index: object, store: Store, status: StoreStatus): Buffer {
    return this.entry(index, store, status).body;
  }

  /**
   * The same envelope gzipped (a 200-item menu: 161 KB to 6 KB), compressed once per entry; the
   * bound counts both sizes.
   */
  gzipped(index: object, store: Store, status: StoreStatus): Buffer {
    const entry = this.entry(index, store, status);
    if (entry.gzipped) return entry.gzipped;
    const gzipped = gzipSync(entry.body);
    this.entries.set(store.id, { ...entry, gzipped }); // a new object: lru-cache recounts the size only then
    return gzipped;
  }

  private entry(index: object, store: Store, status: StoreStatus): Entry {
    if (index !== this.index) {
      this.entries.clear();
      this.index = index;
    }
    const hit = this.entries.get(store.id);
    if (hit && hit.status === status.status && hit.accepting === status.accepting_orders) return hit;
    const entry: Entry = {
      status: status.status,
      accepting: status.accepting_orders,
      body: Buffer.from(JSON.stringify({ data: toMenu(store, status) })),
    };
    this.entries.set(store.id, entry);
    return entry;
  }

  /** Entries and bytes held (for tests and diagnostics). */
  size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.calculatedSize };
  }
}

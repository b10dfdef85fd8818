import { LRUCache } from 'lru-cache';

/**
 * Remembers computed answers by key, at most `maxEntries` of them and at most `maxWeight` in
 * total (weight as the caller measures it; at least 1 each); least recently used out first. An
 * answer heavier than `maxWeight` is returned but not kept.
 */
export class BoundedMemo<V extends object> {
  private readonly entries: LRUCache<string, V>;

  constructor(limits: { maxEntries: number; maxWeight: number; weigh: (value: V) => number }) {
    this.entries = new LRUCache<string, V>({
      max: limits.maxEntries,
      maxSize: limits.maxWeight,
      sizeCalculation: (value) => Math.max(1, limits.weigh(value)),
    });
  }

  get(key: string, compute: () => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    this.entries.set(key, value);
    return value;
  }

  size(): { entries: number; weight: number } {
    return { entries: this.entries.size, weight: this.entries.calculatedSize };
  }
}

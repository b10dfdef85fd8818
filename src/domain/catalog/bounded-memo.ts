/**
 * Remembers computed answers by key, at most `maxEntries` of them and at most `maxWeight` in
 * total (weight as the caller measures it); least recently used out first. An answer heavier
 * than `maxWeight` is returned but not kept.
 */
export class BoundedMemo<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private weight = 0;

  constructor(private readonly limits: { maxEntries: number; maxWeight: number; weigh: (value: V) => number }) {}

  get(key: string, compute: () => V): V {
    const hit = this.entries.get(key);
    if (hit) {
      // Re-inserting keeps the Map's order least recently used first.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    const value = compute();
    const weight = this.limits.weigh(value);
    if (weight > this.limits.maxWeight) return value;
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.weight <= this.limits.maxWeight) break;
      this.entries.delete(k);
      this.weight -= e.weight;
    }
    return value;
  }

  size(): { entries: number; weight: number } {
    return { entries: this.entries.size, weight: this.weight };
  }
}

/**
 * Which events a reader or consumer group wants: by stream prefix, by type, and by partition of
 * streams, so several threads can share one catch-up without splitting a read-model document.
 */
export interface EventFilter {
  streamPrefixes?: string[];
  eventTypes?: string[];
  /** Only events whose `streamPart(streamId, streamPrefixes, count)` is one of `parts`. */
  partition?: { count: number; parts: number[] };
}

/**
 * A stream's key: its id after the first of `prefixes` it starts with (the whole id when none
 * does), so `order-X` and `rider-X` share the key `X`. The service's read models key their
 * documents this way, which lets threads split a catch-up by stream part without splitting a
 * document.
 */
export function streamKey(streamId: string, prefixes: readonly string[] = []): string {
  const prefix = prefixes.find((p) => streamId.startsWith(p));
  return prefix === undefined ? streamId : streamId.slice(prefix.length);
}

/** Which of `count` parts a stream falls in: FNV-1a (32-bit) of its key, modulo `count`. */
export function streamPart(streamId: string, prefixes: readonly string[] | undefined, count: number): number {
  return keyPart(streamKey(streamId, prefixes), count);
}

/** The part of a stream key (SQLite computes the key in SQL and calls this for the rest). */
export function keyPart(key: string, count: number): number {
  if (!Number.isInteger(count) || count < 1)
    throw new TypeError(`A partition needs a whole number of parts, not ${count}`);
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % count;
}

/** Whether an event of `streamId` and `type` passes `filter` (adapters that filter in memory). */
export function matchesFilter(streamId: string, type: string, filter: EventFilter | undefined): boolean {
  const prefixes = filter?.streamPrefixes ?? [];
  const types = filter?.eventTypes ?? [];
  if (prefixes.length > 0 && !prefixes.some((p) => streamId.startsWith(p))) return false;
  if (types.length > 0 && !types.includes(type)) return false;
  const partition = filter?.partition;
  return !partition || partition.parts.includes(streamPart(streamId, prefixes, partition.count));
}

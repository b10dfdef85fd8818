import { StorageUnavailableError, type EventStore } from '../ports/event-store.js';
import { eventMetadata } from '../application/event-metadata.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';

/** Where readiness probes the event store while its writes fail; the stream keeps only its newest event. */
export const STORAGE_PROBE_STREAM = 'storage-probe';

export interface StorageWatch {
  /** The event store, with every write's storage failure (and the next success) noted, and whenDurable's failures. */
  events: EventStore;
  /**
   * Resolves while writes work. After a write failed with StorageUnavailableError, makes one small
   * write itself (StorageProbed) and rejects with its error until one succeeds: a replica a balancer
   * stopped sending requests to still finds out when space has come back. Before that, waits for
   * what the log holds to be durable (`whenDurable`), so a failed sync no answer waited for (the
   * embedded log's, of 'ordered' commits) fails readiness too.
   */
  check: () => Promise<void>;
}

export function watchStorage(store: EventStore, deps: { clock: Clock; logger: Logger }): StorageWatch {
  let failure: StorageUnavailableError | null = null;
  const failed = (err: unknown): never => {
    if (err instanceof StorageUnavailableError && !failure)
      deps.logger.error({ err }, 'event store writes fail: storage unavailable');
    if (err instanceof StorageUnavailableError) failure = err;
    throw err;
  };
  const noted = async <T>(write: () => Promise<T>): Promise<T> => {
    let result: T;
    try {
      result = await write();
    } catch (err) {
      return failed(err);
    }
    if (failure) deps.logger.info({ after: failure.message }, 'event store writes work again');
    failure = null;
    return result;
  };
  const append: EventStore['append'] = (streamId, events, options) =>
    noted(() => store.append(streamId, events, options));
  const setStreamMaxCount: EventStore['setStreamMaxCount'] = (streamId, maxCount) =>
    noted(() => store.setStreamMaxCount(streamId, maxCount));
  // Its fsync fails as a write's does; a wait that needed no fsync says nothing about writes.
  const whenDurable: EventStore['whenDurable'] = () => store.whenDurable().catch(failed);
  // Bound once per member, and again if the store's member is replaced.
  const bound = new Map<PropertyKey, { of: unknown; fn: unknown }>();
  const events = new Proxy(store, {
    get(target, prop) {
      if (prop === 'append') return append;
      if (prop === 'setStreamMaxCount') return setStreamMaxCount;
      if (prop === 'whenDurable') return whenDurable;
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      let entry = bound.get(prop);
      if (entry?.of !== value)
        bound.set(prop, (entry = { of: value, fn: (value as (...args: unknown[]) => unknown).bind(target) }));
      return entry.fn;
    },
  });

  let probing: Promise<void> | undefined;
  const probe = async (): Promise<void> => {
    const at = deps.clock.now().toISOString();
    await append(
      STORAGE_PROBE_STREAM,
      [{ type: 'StorageProbed', data: { at }, metadata: eventMetadata({ actor: 'system', at }) }],
      { expectedRevision: 'any' },
    );
    await setStreamMaxCount(STORAGE_PROBE_STREAM, 1);
  };
  return {
    events,
    check: async () => {
      if (!failure) return whenDurable();
      // One probe at a time, however many readiness checks arrive.
      probing ??= probe().finally(() => (probing = undefined));
      await probing;
    },
  };
}

import { WrongExpectedRevisionError, type EventStore } from '../ports/event-store.js';
import type { ServiceMetrics } from '../shared/metrics.js';

/**
 * The event store with each append's latency and outcome reported to `metrics`; every other member
 * is the store's own, bound to it (a Proxy, so members the port gains later pass through as well
 * and the adapters stay untouched).
 */
export function timedEventStore(store: EventStore, metrics: Pick<ServiceMetrics, 'eventStoreAppend'>): EventStore {
  const append: EventStore['append'] = async (streamId, events, options) => {
    const started = performance.now();
    try {
      const result = await store.append(streamId, events, options);
      metrics.eventStoreAppend('ok', (performance.now() - started) / 1000);
      return result;
    } catch (err) {
      metrics.eventStoreAppend(
        err instanceof WrongExpectedRevisionError ? 'conflict' : 'error',
        (performance.now() - started) / 1000,
      );
      throw err;
    }
  };
  // Bound once per member (and again if the store's member is replaced).
  const bound = new Map<PropertyKey, { of: unknown; fn: unknown }>();
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'append') return append;
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      let entry = bound.get(prop);
      if (entry?.of !== value)
        bound.set(prop, (entry = { of: value, fn: (value as (...args: unknown[]) => unknown).bind(target) }));
      return entry.fn;
    },
  });
}

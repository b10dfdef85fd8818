import type { AppendOptions, EventStore } from '../../src/ports/event-store.js';

/** One append as the store was asked for it. */
export interface RecordedAppend {
  stream: string;
  types: string[];
  durability: NonNullable<AppendOptions['durability']>;
}

/** The store, noting each append's stream, event types and the durability it asked for. */
export function recordingAppends<S extends EventStore>(events: S): { events: S; appends: RecordedAppend[] } {
  const appends: RecordedAppend[] = [];
  const proxy = new Proxy(events, {
    get(target, prop, receiver) {
      if (prop !== 'append') return Reflect.get(target, prop, receiver) as unknown;
      return (stream: string, list: Parameters<EventStore['append']>[1], options: AppendOptions) => {
        appends.push({ stream, types: list.map((e) => e.type), durability: options.durability ?? 'durable' });
        return target.append(stream, list, options);
      };
    },
  });
  return { events: proxy, appends };
}

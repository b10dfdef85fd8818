import type { EventStore } from '../ports/event-store.js';
import { handleCommand, type Evolver, type ReadStream } from '../application/command-handler.js';
import { eventMetadata } from '../application/event-metadata.js';
import { eventRecordStream, type EventRecordEvent, type EventRecordedData } from '../domain/webhook/event-records.js';
import type { DeliveryCause } from './delivery-log.js';

/**
 * Appends `webhook-events-<source event id>` streams: the events of one order event that no
 * delivery carries (see domain/webhook/event-records.ts). A re-delivered source event finds its
 * events there and records only those missing (its endpoint's `enabled_events` may have changed
 * in between, so one it scheduled a delivery for before may now be left out), never one twice.
 */
export class EventLog {
  constructor(private readonly events: EventStore) {}

  async record(sourceEventId: string, records: EventRecordedData[], cause: DeliveryCause, at: string): Promise<void> {
    const first = records[0];
    if (!first) return;
    const recorded: EventRecordEvent[] = records.map((data) => ({ type: 'WebhookEventRecorded', data }));
    const missing = (ids: ReadonlySet<string>) => recorded.filter((r) => !ids.has(r.data.event.id));
    // Written without reading first (the usual case: a new stream); a conflict reads it and decides again.
    await handleCommand(this.events, eventRecordStream(sourceEventId), RECORDED_IDS, missing, {
      from: NOTHING,
      // As the deliveries the dispatcher schedules: ordered before its ack of the source event.
      durability: 'ordered',
      metadata: () => eventMetadata({ actor: 'system', cause, owner: first, at }),
    });
  }
}

/** The event ids a recording stream holds. */
const RECORDED_IDS: Evolver<ReadonlySet<string>, EventRecordEvent> = {
  initialState: () => new Set(),
  evolve: (ids, e) => new Set([...ids, e.data.event.id]),
};
const NOTHING: ReadStream<ReadonlySet<string>> = { state: new Set(), revision: 'no_stream' };

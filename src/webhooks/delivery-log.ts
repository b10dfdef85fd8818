import { WrongExpectedRevisionError, type AppendOptions, type EventMetadata, type EventStore } from '../ports/event-store.js';
import { deliveryStream, type DeliveryEvent, type DeliveryScheduledData } from './delivery-events.js';
import { foldDelivery, type DeliveryState } from './delivery-state.js';
import type { WebhookEnvelope } from './envelope.js';

export interface LoadedDelivery {
  state: DeliveryState;
  /** Exactly what every attempt sends (the same bytes each time once serialised). */
  envelope: WebhookEnvelope;
  revision: number;
}

export interface DeliveryCause {
  causationId: string | null;
  correlationId: string | null;
  requestId: string | null;
}

/** Reads and appends `webhook-delivery-` streams; every write expects the revision it read. */
export class DeliveryLog {
  constructor(private readonly events: EventStore) {}

  /**
   * False when the delivery was already scheduled (a re-delivered source event): nothing is written
   * twice. `durability` as in the event-store port.
   */
  async schedule(data: DeliveryScheduledData, cause: DeliveryCause, durability: AppendOptions['durability'] = 'durable'): Promise<boolean> {
    try {
      await this.events.append(
        deliveryStream(data.delivery_id),
        [{ type: 'WebhookDeliveryScheduled', data: { ...data }, metadata: metadata(data, cause, data.at) }],
        { expectedRevision: 'no_stream', durability },
      );
      return true;
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) return false;
      throw err;
    }
  }

  async load(deliveryId: string): Promise<LoadedDelivery | null> {
    const recorded = await this.events.readStream(deliveryStream(deliveryId));
    const first = recorded[0];
    if (!first || first.type !== 'WebhookDeliveryScheduled') return null;
    const state = foldDelivery(recorded.map((e) => ({ type: e.type, data: e.data }) as DeliveryEvent));
    if (!state) return null;
    const scheduled = first.data as unknown as DeliveryScheduledData;
    return { state, envelope: scheduled.event, revision: recorded[recorded.length - 1]!.revision };
  }

  /** Appends after `revision`; false when someone else appended first (the caller re-reads). `durability` as in the event-store port. */
  async record(state: DeliveryState, events: DeliveryEvent[], revision: number, cause: DeliveryCause, durability: AppendOptions['durability'] = 'durable'): Promise<boolean> {
    const at = events[0]?.data.at ?? state.updated_at;
    try {
      await this.events.append(
        deliveryStream(state.id),
        events.map((e) => ({ type: e.type, data: { ...e.data }, metadata: metadata(state, cause, at) })),
        { expectedRevision: revision, durability },
      );
      return true;
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) return false;
      throw err;
    }
  }
}

function metadata(owner: { partner_id: string; environment: string }, cause: DeliveryCause, at: string): EventMetadata {
  return {
    partner_id: owner.partner_id,
    environment: owner.environment,
    actor: 'system',
    request_id: cause.requestId,
    correlation_id: cause.correlationId ?? cause.requestId,
    causation_id: cause.causationId ?? cause.requestId,
    schema_version: 1,
    occurred_at: at,
  };
}

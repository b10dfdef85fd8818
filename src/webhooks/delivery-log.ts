import type { AppendOptions, EventStore } from '../ports/event-store.js';
import type { Environment } from '../domain/environment.js';
import { handleCommand, type Handled, type ReadStream } from '../application/command-handler.js';
import { eventMetadata } from '../application/event-metadata.js';
import { deliveryStream, type DeliveryEvent, type DeliveryScheduledData } from '../domain/webhook/delivery-events.js';
import { evolveDelivery, foldDelivery, type DeliveryState } from '../domain/webhook/delivery-state.js';
import type { WebhookEnvelope } from '../domain/webhook/envelope.js';

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

/**
 * Reads and appends `webhook-delivery-` streams. Every write is a command (command-handler.ts): it
 * expects the revision it read.
 */
export class DeliveryLog {
  constructor(private readonly events: EventStore) {}

  /**
   * The delivery as written; null when it was already scheduled (a re-delivered source event):
   * nothing is written twice. `durability` as in the event-store port.
   */
  async schedule(
    data: DeliveryScheduledData,
    cause: DeliveryCause,
    durability: AppendOptions['durability'] = 'durable',
  ): Promise<DeliveryState | null> {
    const scheduled: DeliveryEvent = { type: 'WebhookDeliveryScheduled', data };
    const handled = await handleCommand(this.events, deliveryStream(data.delivery_id), DELIVERIES, () => [scheduled], {
      // The id derives from the source event, so a stream already there is that event's delivery.
      from: NO_DELIVERY,
      onConflict: 'return',
      durability,
      metadata: () => metadata(data, cause, data.at),
    });
    return handled.conflict ? null : handled.state;
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

  /**
   * Appends after `revision`; false when someone else appended first (the caller decides whether to
   * read again). `durability` as in the event-store port.
   */
  async record(
    state: DeliveryState,
    events: DeliveryEvent[],
    revision: number,
    cause: DeliveryCause,
    durability: AppendOptions['durability'] = 'durable',
  ): Promise<boolean> {
    const handled = await handleCommand(this.events, deliveryStream(state.id), DELIVERIES, () => events, {
      from: { state, revision },
      onConflict: 'return',
      durability,
      metadata: () => metadata(state, cause, events[0]?.data.at ?? state.updated_at),
    });
    return !handled.conflict;
  }

  /**
   * Decides on `from` (the delivery as just read) and appends; after an append by someone else,
   * decides again on a fresh read, until the decision is appended or is to append nothing.
   * `durability` as in the event-store port.
   */
  handle(
    from: LoadedDelivery,
    decide: (state: DeliveryState) => DeliveryEvent[],
    cause: DeliveryCause,
    durability: AppendOptions['durability'] = 'durable',
  ): Promise<Handled<DeliveryState | null, DeliveryEvent>> {
    return handleCommand(
      this.events,
      deliveryStream(from.state.id),
      DELIVERIES,
      (state) => (state ? decide(state) : []),
      {
        from,
        retries: Number.POSITIVE_INFINITY,
        durability,
        // Nothing is decided on a missing delivery, so the state here is always one.
        metadata: (state, events) => metadata(state!, cause, events[0]?.data.at ?? state!.updated_at),
      },
    );
  }
}

/** A delivery's stream folded (domain/webhook/delivery-state.ts), for the command handler. */
const DELIVERIES = { initialState: (): DeliveryState | null => null, evolve: evolveDelivery };
const NO_DELIVERY: ReadStream<DeliveryState | null> = { state: null, revision: 'no_stream' };

function metadata(owner: { partner_id: string; environment: Environment }, cause: DeliveryCause, at: string) {
  return eventMetadata({ actor: 'system', cause, owner, at });
}

import { setTimeout as sleep } from 'node:timers/promises';
import {
  consumerGroupLag,
  StorageUnavailableError,
  type AppendOptions,
  type ConsumerGroup,
  type ConsumerOutcome,
  type EventStore,
  type RecordedEvent,
} from '../ports/event-store.js';
import { isEnvironment, type Environment } from '../domain/environment.js';
import { isOrderEventType, ORDER_STREAM_PREFIX, orderIdOf } from '../domain/order/events.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { deliveryIdFor, type DeliveryScheduledData } from '../domain/webhook/delivery-events.js';
import type { DeliveryCause, DeliveryLog } from './delivery-log.js';
import type { DeliveryState } from '../domain/webhook/delivery-state.js';
import type { WebhookEndpoints } from './endpoints.js';
import type { WebhookEnvelope } from '../domain/webhook/envelope.js';
import { envelopesAt } from './order-envelopes.js';

export const WEBHOOK_DISPATCHER_GROUP = 'webhook-dispatcher';
/** A failing event is retried with growing pauses (1 s .. 30 s), then parked for an operator. */
const MAX_RETRIES = 20;
const MAX_BACKOFF_MS = 30_000;
export const backoffMs = (retryCount: number) => Math.min(1000 * 2 ** retryCount, MAX_BACKOFF_MS);
/**
 * The longest the handler may take for one event: the longest pause before a retry, and as long
 * again for its reads and writes. The group's store must not hand the event to another consumer
 * sooner (EventStoreDB's message timeout follows from it).
 */
export const DISPATCH_HANDLER_MAX_MS = MAX_BACKOFF_MS + 30_000;

export interface Scheduling {
  track(state: DeliveryState): void;
}

/**
 * Turns order events into deliveries. A durable consumer group (sequential, in global order)
 * hands it every event of every order stream; it records one WebhookDeliveryScheduled per webhook
 * the partner's endpoint subscribes to, then acks. Sending is the scheduler's job, so a slow
 * endpoint never holds the group. A re-delivered event finds its deliveries already recorded
 * (their ids derive from the event) and records nothing twice.
 */
export class WebhookDispatcher {
  private group: ConsumerGroup | undefined;
  private stopping = new AbortController();

  constructor(
    private readonly deps: {
      events: EventStore;
      endpoints: WebhookEndpoints;
      log: DeliveryLog;
      scheduler: Scheduling;
      clock: Clock;
      logger?: Logger;
    },
  ) {}

  async start(): Promise<void> {
    this.stopping = new AbortController(); // started again after a stop when this replica becomes the sender again
    this.group = this.deps.events.consumerGroup({
      group: WEBHOOK_DISPATCHER_GROUP,
      filter: { streamPrefixes: [ORDER_STREAM_PREFIX] },
      maxRetries: MAX_RETRIES,
      maxHandlerMs: DISPATCH_HANDLER_MAX_MS,
      onError: (err) => this.deps.logger?.error({ err }, 'webhook dispatcher group failed; it keeps going'),
    });
    await this.group.start((e, { retryCount }) => this.handleOrWait(e, retryCount));
  }

  /** Positions between the log's head and the group's position (consumer_group_lag). */
  lag(): Promise<bigint> {
    return consumerGroupLag(this.deps.events, this.group);
  }

  /** Events the group gave up on (parked), for operators; none while this replica does not run the group. */
  async parked(): Promise<RecordedEvent[]> {
    return (await this.group?.parked()) ?? [];
  }

  /**
   * Whether every order event in the log has been handled (its deliveries written): true when the
   * group is not running here. For tests and operators that need the log to stand still after a write.
   */
  async idle(): Promise<boolean> {
    if (!this.group) return true;
    const position = await this.group.position();
    const waiting = await this.deps.events.readAll({
      after: position,
      maxCount: 1,
      filter: { streamPrefixes: [ORDER_STREAM_PREFIX] },
    });
    return waiting.length === 0;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.group?.stop();
    this.group = undefined;
  }

  /** A store hiccup must not burn through the retries in a few milliseconds and park the event. */
  private async handleOrWait(e: RecordedEvent, retryCount: number): Promise<ConsumerOutcome> {
    try {
      return await this.handle(e);
    } catch (err) {
      this.deps.logger?.error(
        { err, event_id: e.id, stream: e.streamId, retry_count: retryCount },
        'webhook dispatch failed; retrying',
      );
      await sleep(backoffMs(retryCount), undefined, { signal: this.stopping.signal }).catch(() => undefined);
      // Thrown, not 'retry': the embedded store's group then counts no retry for a storage outage
      // (a full disk, a failed sync), which would otherwise park the event after MAX_RETRIES.
      if (err instanceof StorageUnavailableError) throw err;
      return 'retry';
    }
  }

  async handle(e: RecordedEvent): Promise<ConsumerOutcome> {
    if (!isOrderEventType(e.type)) return 'ack';
    const { partner_id: partnerId, environment } = e.metadata;
    const orderId = orderIdOf(e.streamId);
    if (typeof partnerId !== 'string' || !isEnvironment(environment) || orderId === null) return 'park';
    const endpoint = await this.deps.endpoints.get({ partnerId, environment });
    if (!endpoint) return 'ack';
    const built = (await envelopesAt(this.deps.events, orderId, [e.revision])).get(e.revision);
    if (!built || built.source.id !== e.id) return 'park';
    const { after, envelopes } = built;
    const sent = (env: WebhookEnvelope) => endpoint.events === null || endpoint.events.includes(env.type);
    const cause = {
      causationId: e.id,
      correlationId: typeof e.metadata.correlation_id === 'string' ? e.metadata.correlation_id : null,
      requestId: null,
    };
    // 'ordered': the group handles one event at a time, and waiting for the disk on each capped it
    // at one sync per event (it fell seconds behind at 200 events/s on a slow disk). The ack that
    // follows is written after the schedule in the same log, so it is never durable without it: a
    // power loss re-delivers the source event and the delivery is scheduled (and sent) again, which
    // at-least-once allows.
    // The index among all the event's webhooks, sent or not: the events API orders by it.
    for (const [index, envelope] of envelopes.entries()) {
      if (!sent(envelope)) continue;
      const input = {
        partnerId,
        environment,
        url: endpoint.url,
        envelope,
        orderId: after.order_id,
        orderRevision: e.revision,
        typeIndex: index,
      };
      await this.schedule(input, cause, 'ordered');
    }
    return 'ack';
  }

  /** Records a delivery due at once and hands it to the scheduler (also used for webhook.test). */
  async schedule(
    input: {
      partnerId: string;
      environment: Environment;
      url: string;
      envelope: WebhookEnvelope;
      orderId: string | null;
      orderRevision: number | null;
      typeIndex: number;
    },
    cause: DeliveryCause,
    durability: AppendOptions['durability'] = 'durable',
  ): Promise<DeliveryState> {
    const at = this.deps.clock.now().toISOString();
    const data: DeliveryScheduledData = {
      delivery_id: deliveryIdFor(input.envelope.id),
      partner_id: input.partnerId,
      environment: input.environment,
      event_id: input.envelope.id,
      event_type: input.envelope.type,
      order_id: input.orderId,
      order_revision: input.orderRevision,
      type_index: input.typeIndex,
      url: input.url,
      event: input.envelope,
      at,
      next_attempt_at: at,
    };
    // Already there (a re-delivered source event): the log says what is still due.
    const state =
      (await this.deps.log.schedule(data, cause, durability)) ?? (await this.deps.log.load(data.delivery_id))?.state;
    if (!state) throw new Error(`delivery ${data.delivery_id} was scheduled but cannot be read back`);
    this.deps.scheduler.track(state);
    return state;
  }
}

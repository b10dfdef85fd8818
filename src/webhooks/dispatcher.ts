import { setTimeout as sleep } from 'node:timers/promises';
import {
  consumerGroupLag,
  type AppendOptions,
  type ConsumerGroup,
  type ConsumerOutcome,
  type EventStore,
  type RecordedEvent,
} from '../ports/event-store.js';
import type { Environment } from '../domain/environment.js';
import { isOrderEventType, ORDER_STREAM_PREFIX, type OrderEvent } from '../domain/order/events.js';
import { foldView } from '../domain/order/state.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { deliveryIdFor, type DeliveryScheduledData } from '../domain/webhook/delivery-events.js';
import type { DeliveryCause, DeliveryLog } from './delivery-log.js';
import type { EventLog } from './event-log.js';
import type { DeliveryState } from '../domain/webhook/delivery-state.js';
import type { WebhookEndpoints } from './endpoints.js';
import { orderEnvelopes, type WebhookEnvelope } from '../domain/webhook/envelope.js';

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
 * Turns order events into deliveries and events. A durable consumer group (sequential, in global
 * order) hands it every event of every order stream; it records one WebhookDeliveryScheduled per
 * webhook the partner's endpoint subscribes to, and the other webhook events of that order event
 * (no endpoint, or a type it leaves out) in one `webhook-events-` stream for the events API, then acks. Sending is the scheduler's job, so a slow
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
      eventLog: EventLog;
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

  /** Positions between the log's head and the group's stored position (consumer_group_lag). */
  lag(): Promise<bigint> {
    return consumerGroupLag(this.deps.events, this.group);
  }

  /**
   * Whether every order event in the log has been handled (its deliveries and event records
   * written): true when the group is not running here. For tests and operators that need the log
   * to stand still after a write.
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
      return 'retry';
    }
  }

  async handle(e: RecordedEvent): Promise<ConsumerOutcome> {
    if (!isOrderEventType(e.type)) return 'ack';
    const partnerId = e.metadata.partner_id;
    const environment = e.metadata.environment as Environment;
    if (typeof partnerId !== 'string' || (environment !== 'live' && environment !== 'sandbox')) return 'park';
    const endpoint = await this.deps.endpoints.get({ partnerId, environment });
    // The order as it was right after this event, and right before it: fold the stream up to here.
    const history = await this.deps.events.readStream(e.streamId, { maxCount: e.revision + 1 });
    const facts = history.map((r) => ({ type: r.type, data: r.data }) as OrderEvent);
    const last = facts.pop();
    if (!last || history[history.length - 1]!.id !== e.id) return 'park';
    // Stored events, accepted once already: replayed through the machine's table, as the read models do.
    const before = facts.length > 0 ? foldView(null, facts) : null;
    const after = foldView(before, [last]);
    const all = orderEnvelopes({ id: e.id, type: e.type }, before, after);
    const sent = (env: WebhookEnvelope) =>
      endpoint !== null && (endpoint.events === null || endpoint.events.includes(env.type));
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
    // The events API lists every event, sent or not: those no delivery carries are recorded on their own.
    const unsent = all.flatMap((event, index) =>
      sent(event)
        ? []
        : [
            {
              partner_id: partnerId,
              environment,
              order_id: after.order_id,
              order_revision: e.revision,
              type_index: index,
              event,
            },
          ],
    );
    await this.deps.eventLog.record(e.id, unsent, cause, after.updated_at);
    for (const [index, envelope] of all.entries()) {
      if (!endpoint || !sent(envelope)) continue;
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
    await this.deps.log.schedule(data, cause, durability);
    // Freshly written or already there (a re-delivered source event): either way the log says what is due.
    const state = (await this.deps.log.load(data.delivery_id))?.state;
    if (!state) throw new Error(`delivery ${data.delivery_id} was scheduled but cannot be read back`);
    this.deps.scheduler.track(state);
    return state;
  }
}

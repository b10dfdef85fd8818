import { consumerGroupLag, type ConsumerGroup, type EventStore, type RecordedEvent } from '../../ports/event-store.js';
import { isApiError } from '../../domain/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { CatalogReader, OrderService } from './order-service.js';
import { ORDER_STREAM_PREFIX, orderIdOf } from '../../domain/order/events.js';
import type { OrderView } from '../../domain/order/state.js';

export const AUTO_ACCEPT_GROUP = 'auto-accept';
const AUTO_ACCEPT_CONCURRENCY = 32;

/**
 * Stores flagged `auto_accept` confirm live orders by themselves: cash orders once placed, card
 * orders once paid. A durable consumer group reacts after the fact, so POST /orders still answers
 * `placed` and the confirmation is its own event (and webhook). Sandbox orders never move alone.
 */
export class AutoAccept {
  private group: ConsumerGroup | undefined;

  constructor(
    private readonly deps: { events: EventStore; orders: OrderService; catalog: CatalogReader; logger: Logger },
  ) {}

  async start(): Promise<void> {
    this.group = this.deps.events.consumerGroup({
      group: AUTO_ACCEPT_GROUP,
      filter: { streamPrefixes: [ORDER_STREAM_PREFIX], eventTypes: ['OrderPlaced', 'PaymentSucceeded'] },
      // Orders are independent, and each acceptance waits for its read and its commit: one at a
      // time, a busy service places orders faster than they are accepted.
      concurrency: AUTO_ACCEPT_CONCURRENCY,
      onError: (err) => this.deps.logger.error({ err }, 'auto-accept failed; will retry'),
    });
    await this.group.start((e) => this.handle(e));
  }

  async stop(): Promise<void> {
    await this.group?.stop();
  }

  /** Positions between the log's head and the group's position (consumer_group_lag). */
  lag(): Promise<bigint> {
    return consumerGroupLag(this.deps.events, this.group);
  }

  /** Events the group gave up on (parked), for operators; none while this replica does not run the group. */
  async parked(): Promise<RecordedEvent[]> {
    return (await this.group?.parked()) ?? [];
  }

  private async handle(e: RecordedEvent): Promise<'ack'> {
    const { orders, catalog } = this.deps;
    const orderId = orderIdOf(e.streamId);
    if (orderId === null) return 'ack';
    // Which orders the store wants accepted; whether this one may be accepted now is the machine's call.
    const wanted = (order: OrderView) =>
      order.environment === 'live' && catalog.current().store(order.store.id)?.auto_accept === true;
    try {
      await orders.reactIf(
        { actor: 'restaurant', correlationId: correlationOf(e), causationId: e.id },
        orderId,
        wanted,
        { type: 'accept', by: 'auto' },
      );
    } catch (err) {
      // The machine refused (a card order not paid yet, or one that has moved on): nothing to do.
      if (!isApiError(err)) throw err;
    }
    return 'ack';
  }
}

/** The placement's correlation id; stored metadata is any JSON, so it is checked, and the event's id stands in. */
function correlationOf(e: RecordedEvent): string {
  const id = e.metadata.correlation_id;
  return typeof id === 'string' ? id : e.id;
}

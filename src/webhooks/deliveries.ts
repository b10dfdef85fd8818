import { randomUUID } from 'node:crypto';
import { ApiError } from '../domain/errors.js';
import type { Query } from '../ports/read-model-store.js';
import type { Clock } from '../shared/clock.js';
import type { ReadModels } from '../application/read-models.js';
import { DELIVERY_LOG_RETENTION, webhookDeliveries } from '../../projections/webhook-deliveries.js';
import type { EventType } from '../domain/webhook/event-types.js';
import type { DeliveryLog } from './delivery-log.js';
import type { DeliveryState, DeliveryStatus } from '../domain/webhook/delivery-state.js';
import type { WebhookDispatcher } from './dispatcher.js';
import { notConfigured, type EndpointOwner, type WebhookEndpoints } from './endpoints.js';
import { testEnvelope } from '../domain/webhook/envelope.js';
import type { DeliveryScheduler } from './scheduler.js';

/** Spec "Limits": the delivery log shows deliveries created in the last 30 days (the store purges older ones). */
export const DELIVERY_RETENTION_MS = DELIVERY_LOG_RETENTION.afterMs;

export interface DeliveryListQuery {
  limit: number;
  starting_after?: string | undefined;
  type?: EventType | undefined;
  status?: DeliveryStatus | undefined;
  order_id?: string | undefined;
  event_id?: string | undefined;
}

/** The partner-facing side of deliveries: the log, one delivery, redelivery and test events. */
export class WebhookDeliveries {
  constructor(
    private readonly deps: {
      readModels: ReadModels;
      log: DeliveryLog;
      scheduler: DeliveryScheduler;
      dispatcher: WebhookDispatcher;
      endpoints: WebhookEndpoints;
      clock: Clock;
    },
  ) {}

  /** Newest first, from the delivery-log projection once it includes every write made before this read. */
  async list(owner: EndpointOwner, q: DeliveryListQuery): Promise<{ deliveries: DeliveryState[]; has_more: boolean }> {
    const { readModels } = this.deps;
    await readModels.catchUp(webhookDeliveries.name);
    const where: Record<string, string> = { partner_id: owner.partnerId, environment: owner.environment };
    if (q.type !== undefined) where.event_type = q.type;
    if (q.status !== undefined) where.status = q.status;
    if (q.order_id !== undefined) where.order_id = q.order_id;
    if (q.event_id !== undefined) where.event_id = q.event_id;
    const query: Query = {
      where,
      range: { field: 'created_at', gte: this.retentionStart() },
      sort: { field: 'created_at', direction: 'desc' },
      limit: q.limit + 1,
    };
    if (q.starting_after !== undefined) {
      const cursor = await readModels.store.get<DeliveryState>(webhookDeliveries.collection, q.starting_after);
      if (!cursor || !this.visible(owner, cursor.doc)) {
        throw new ApiError('validation_error', `starting_after: no delivery with id ${q.starting_after}.`, {
          param: 'starting_after',
        });
      }
      query.after = { value: cursor.doc.created_at, id: cursor.id };
    }
    const rows = await readModels.store.find<DeliveryState>(webhookDeliveries.collection, query);
    return { deliveries: rows.slice(0, q.limit).map((r) => r.doc), has_more: rows.length > q.limit };
  }

  /** Always current: folded from the delivery's own stream. */
  async get(owner: EndpointOwner, deliveryId: string): Promise<DeliveryState> {
    const loaded = await this.deps.log.load(deliveryId);
    if (!loaded || !this.visible(owner, loaded.state)) throw notFound(deliveryId);
    return loaded.state;
  }

  /**
   * The same event (same id and body) again now, newly signed, recorded as one more attempt.
   * delivery_in_progress while another attempt of it is in flight (see attemptDelivery).
   */
  async redeliver(owner: EndpointOwner, deliveryId: string, requestId: string): Promise<DeliveryState> {
    const loaded = await this.deps.log.load(deliveryId);
    if (!loaded || !this.visible(owner, loaded.state)) throw notFound(deliveryId);
    return (await this.deps.scheduler.attemptNow(deliveryId, loaded.state, requestId)) ?? loaded.state;
  }

  /** A webhook.test event through the ordinary delivery path (sent whatever `events` subscribes to). */
  async sendTest(owner: EndpointOwner, requestId: string): Promise<DeliveryState> {
    const endpoint = await this.deps.endpoints.get(owner);
    if (!endpoint) throw notConfigured();
    const envelope = testEnvelope({
      sourceId: randomUUID(),
      partnerId: owner.partnerId,
      environment: owner.environment,
      created: this.deps.clock.now().toISOString(),
    });
    return this.deps.dispatcher.schedule(
      {
        partnerId: owner.partnerId,
        environment: owner.environment,
        url: endpoint.url,
        envelope,
        orderId: null,
        orderRevision: null,
        typeIndex: 0,
      },
      { causationId: null, correlationId: requestId, requestId },
    );
  }

  private retentionStart(): string {
    return new Date(this.deps.clock.now().getTime() - DELIVERY_RETENTION_MS).toISOString();
  }

  private visible(owner: EndpointOwner, d: DeliveryState): boolean {
    return (
      d.partner_id === owner.partnerId && d.environment === owner.environment && d.created_at >= this.retentionStart()
    );
  }
}

function notFound(id: string): ApiError {
  return new ApiError('delivery_not_found', `No webhook delivery with id ${id}.`, { param: 'delivery_id' });
}

import { ApiError } from '../domain/errors.js';
import type { Query } from '../ports/read-model-store.js';
import type { EventStore } from '../ports/event-store.js';
import type { WebhookEnvelope } from '../domain/webhook/envelope.js';
import { envelopesAt, type OrderEventEnvelopes } from './order-envelopes.js';
import type { Clock } from '../shared/clock.js';
import type { ReadModels } from '../application/read-models.js';
import { deliveryIdFor } from '../domain/webhook/delivery-events.js';
import { afterInstant, type EventRecord } from '../domain/webhook/event-records.js';
import type { EventType } from '../domain/webhook/event-types.js';
import { webhookEvents } from '../../projections/webhook-events.js';
import { DELIVERY_RETENTION_MS } from './deliveries.js';
import type { EndpointOwner } from './endpoints.js';
import { extend } from '../shared/objects.js';

/** An event as the API shows it: its record with the envelope. */
export type ShownEvent = EventRecord & { event: WebhookEnvelope };

export interface EventListQuery {
  limit: number;
  starting_after?: string | undefined;
  type?: EventType | undefined;
  order_id?: string | undefined;
  created_after?: string | undefined;
  created_before?: string | undefined;
  delivery_success?: boolean | undefined;
}

/**
 * The events API: every webhook event of the last 30 days for one partner and environment, sent
 * or not, from the webhook-events read model (fed by the order events that cause them), with each
 * body the order's at that change.
 */
export class WebhookEvents {
  constructor(private readonly deps: { readModels: ReadModels; events: EventStore; clock: Clock }) {}

  /** Newest first (ties by id), from the read model once it includes every write made before this read. */
  async list(owner: EndpointOwner, q: EventListQuery): Promise<{ events: ShownEvent[]; has_more: boolean }> {
    const { readModels } = this.deps;
    await readModels.catchUp(webhookEvents.name);
    const where: Record<string, string | boolean> = { partner_id: owner.partnerId, environment: owner.environment };
    if (q.type !== undefined) where.type = q.type;
    if (q.order_id !== undefined) where.order_id = q.order_id;
    if (q.delivery_success !== undefined) where.delivery_success = q.delivery_success;
    const query: Query = {
      where,
      range: {
        field: 'sort_key',
        gte: this.retentionStart(),
        ...(q.created_after !== undefined ? { gt: afterInstant(q.created_after) } : {}),
        ...(q.created_before !== undefined ? { lt: q.created_before } : {}),
      },
      sort: { field: 'sort_key', direction: 'desc' },
      limit: q.limit + 1,
    };
    if (q.starting_after !== undefined) {
      const cursor = await this.find(owner, q.starting_after);
      if (!cursor) {
        throw new ApiError('event_not_found', `starting_after: no event with id ${q.starting_after}.`, {
          param: 'starting_after',
        });
      }
      query.after = { value: cursor.doc.sort_key, id: cursor.id };
    }
    const rows = await readModels.store.find<EventRecord>(webhookEvents.collection, query);
    const events = await this.withBodies(rows.slice(0, q.limit).map((r) => r.doc));
    return { events, has_more: rows.length > q.limit };
  }

  async get(owner: EndpointOwner, eventId: string): Promise<ShownEvent> {
    await this.deps.readModels.catchUp(webhookEvents.name);
    const found = await this.find(owner, eventId);
    if (!found) throw new ApiError('event_not_found', `No event with id ${eventId}.`, { param: 'event_id' });
    const [shown] = await this.withBodies([found.doc]);
    if (!shown) throw new ApiError('event_not_found', `No event with id ${eventId}.`, { param: 'event_id' });
    return shown;
  }

  /**
   * The records with their envelopes: those no delivery carries are rebuilt from their order's
   * stream (read once per order), with the same id and body a delivery would have had. One whose
   * order event is not there (the log was replaced under the read model) is left out.
   */
  private async withBodies(records: EventRecord[]): Promise<ShownEvent[]> {
    const wanted = new Map<string, number[]>();
    for (const r of records) {
      if (r.event !== null || r.order_id === null || r.order_revision === null) continue;
      wanted.set(r.order_id, [...(wanted.get(r.order_id) ?? []), r.order_revision]);
    }
    // At most a page of orders (100), read side by side: one round trip's wait on EventStoreDB.
    const built = new Map<string, Map<number, OrderEventEnvelopes>>(
      await Promise.all(
        [...wanted].map(
          async ([orderId, revisions]) => [orderId, await envelopesAt(this.deps.events, orderId, revisions)] as const,
        ),
      ),
    );
    return records.flatMap((r): ShownEvent[] => {
      if (r.event !== null) return [extend(r, { event: r.event })];
      const envelope = built
        .get(r.order_id ?? '')
        ?.get(r.order_revision ?? -1)
        ?.envelopes.find((e) => e.id === r.event_id);
      return envelope ? [extend(r, { event: envelope })] : [];
    });
  }

  /** The event's document (its id is the delivery id the event has or would have), if the owner may see it. */
  private async find(owner: EndpointOwner, eventId: string) {
    const stored = await this.deps.readModels.store.get<EventRecord>(webhookEvents.collection, deliveryIdFor(eventId));
    const d = stored?.doc;
    if (!stored || !d || d.event_id !== eventId) return null;
    if (d.partner_id !== owner.partnerId || d.environment !== owner.environment) return null;
    return d.created >= this.retentionStart() ? stored : null;
  }

  private retentionStart(): string {
    return new Date(this.deps.clock.now().getTime() - DELIVERY_RETENTION_MS).toISOString();
  }
}

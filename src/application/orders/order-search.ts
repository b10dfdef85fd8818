import type { Environment } from '../../domain/environment.js';
import type { OrderStatus } from '../../domain/order/machine.js';
import { orderStream } from '../../domain/order/events.js';
import type { EventStore } from '../../ports/event-store.js';
import type { Query } from '../../ports/read-model-store.js';
import { findOrderEntries } from './order-list-query.js';
import { ordersList, type OrderListEntry } from '../../../projections/orders-list.js';
import type { ReadModels } from '../read-models.js';

export interface RecentOrdersQuery {
  limit: number;
  status?: OrderStatus | undefined;
  environment?: Environment | undefined;
  partnerId?: string | undefined;
  /** The last order of the previous page: the page starts after it. */
  startingAfter?: string | undefined;
}

/** Where a search term matched: the operators' console says so beside the results. */
export type SearchMatch = 'order id' | 'order number' | 'partner' | 'partner reference';

export interface SearchResult {
  match: SearchMatch;
  orders: OrderListEntry[];
}

/**
 * Finding orders across every partner and environment, for operators (never partners: those see
 * their own through OrderQueries). Served from the orders-list read model; an order id is also
 * looked up in the log, so an order the read model has not absorbed yet is still found.
 */
export class OrderSearch {
  constructor(private readonly deps: { readModels: ReadModels; events: EventStore }) {}

  /** Newest first, filtered by status, environment and partner when given. */
  async recent(q: RecentOrdersQuery): Promise<OrderListEntry[]> {
    await this.deps.readModels.catchUp(ordersList.name);
    return (
      (await findOrderEntries(this.deps.readModels.store, {
        limit: q.limit,
        status: q.status,
        environment: q.environment,
        partnerId: q.partnerId,
        startingAfter: q.startingAfter,
      })) ?? []
    );
  }

  /**
   * One term as an order id (that order alone); otherwise every kind it matches, each with its
   * newest orders: an order number, a partner id, a partner's reference. Every kind, not the first:
   * a partner chooses its references, and one equal to another partner's id must not hide that
   * partner's orders. Empty when nothing matches.
   */
  async search(term: string, limit: number): Promise<SearchResult[]> {
    const { readModels, events } = this.deps;
    await readModels.catchUp(ordersList.name);
    const byId = await readModels.store.get<OrderListEntry>(ordersList.collection, term);
    if (byId) return [{ match: 'order id', orders: [byId.doc] }];
    if ((await events.readStream(orderStream(term), { maxCount: 1 })).length)
      return [{ match: 'order id', orders: [] }];
    const newest = { sort: { field: 'created_at', direction: 'desc' as const }, limit };
    const found: SearchResult[] = [];
    for (const [match, field] of [
      ['order number', 'order_number'],
      ['partner', 'partner_id'],
      ['partner reference', 'reference'],
    ] as const) {
      const orders = await this.find({ where: { [field]: term }, ...newest });
      if (orders.length) found.push({ match, orders });
    }
    return found;
  }

  private async find(query: Query): Promise<OrderListEntry[]> {
    return (await this.deps.readModels.store.find<OrderListEntry>(ordersList.collection, query)).map((r) => r.doc);
  }
}

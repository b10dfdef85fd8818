import type { Environment } from '../../domain/environment.js';
import type { FieldValue, Query, ReadModelStore } from '../../ports/read-model-store.js';
import { ordersList, type OrderListEntry } from '../../../projections/orders-list.js';

/**
 * Orders from the orders-list read model, newest first (created_at, then id): one partner's in one
 * environment for the partner API (OrderQueries), any partner's for operators (OrderSearch).
 */
export interface OrderEntriesQuery {
  limit: number;
  partnerId?: string | undefined;
  environment?: Environment | undefined;
  status?: string | undefined;
  reference?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  /** The last order of the previous page: the page starts after it. */
  startingAfter?: string | undefined;
}

/**
 * The query's page; null when `startingAfter` names no order, or one outside the query's partner
 * and environment (a partner never pages from another's order). The caller has caught up.
 */
export async function findOrderEntries(store: ReadModelStore, q: OrderEntriesQuery): Promise<OrderListEntry[] | null> {
  const where: Record<string, FieldValue> = {};
  if (q.partnerId !== undefined) where.partner_id = q.partnerId;
  if (q.environment !== undefined) where.environment = q.environment;
  if (q.reference !== undefined) where.reference = q.reference;
  if (q.status !== undefined) where.status = q.status;
  const query: Query = { where, sort: { field: 'created_at', direction: 'desc' }, limit: q.limit };
  if (q.createdAfter !== undefined || q.createdBefore !== undefined) {
    query.range = {
      field: 'created_at',
      ...(q.createdAfter ? { gt: q.createdAfter } : {}),
      ...(q.createdBefore ? { lt: q.createdBefore } : {}),
    };
  }
  if (q.startingAfter !== undefined) {
    const cursor = await store.get<OrderListEntry>(ordersList.collection, q.startingAfter);
    if (
      !cursor ||
      (q.partnerId !== undefined && cursor.doc.partner_id !== q.partnerId) ||
      (q.environment !== undefined && cursor.doc.environment !== q.environment)
    )
      return null;
    query.after = { value: cursor.doc.created_at, id: cursor.id };
  }
  return (await store.find<OrderListEntry>(ordersList.collection, query)).map((r) => r.doc);
}

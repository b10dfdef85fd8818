import { ApiError } from '../../domain/errors.js';
import type { OrderStatus } from '../../domain/order/machine.js';
import type { OrderView } from '../../domain/order/state.js';
import { findOrderEntries } from './order-list-query.js';
import type { Clock } from '../../shared/clock.js';
import { ordersList, type OrderListEntry } from '../../../projections/orders-list.js';
import { riderPositions, type RiderPositionDocument } from '../../../projections/rider-positions.js';
import type { ReadModels } from '../read-models.js';
import type { PartnerContext } from './order-service.js';
import { extend } from '../../shared/objects.js';

export interface OrderListQuery {
  limit: number;
  starting_after?: string | undefined;
  reference?: string | undefined;
  status?: OrderStatus | undefined;
  created_after?: string | undefined;
  created_before?: string | undefined;
}

/** A rider position older than this is shown as last known (the spec's guidance). */
export const STALE_POSITION_MS = 60_000;
const RIDER_VISIBLE = new Set(['preparing', 'ready', 'out_for_delivery']);

export interface Tracking {
  order_id: string;
  status: string;
  fulfilment: string;
  timeline: Array<{ status: string; at: string }>;
  rider: null | {
    name: string;
    phone: string;
    vehicle: string;
    location: null | { lat: number; lng: number; updated_at: string; stale: boolean };
  };
}

/** Reads served from the read models, after waiting for them to include the caller's writes. */
export class OrderQueries {
  constructor(private readonly deps: { readModels: ReadModels; clock: Clock }) {}

  async list(ctx: PartnerContext, q: OrderListQuery): Promise<{ orders: OrderView[]; has_more: boolean }> {
    const { readModels } = this.deps;
    await readModels.catchUp(ordersList.name);
    const rows = await findOrderEntries(readModels.store, {
      limit: q.limit + 1,
      partnerId: ctx.partnerId,
      environment: ctx.environment,
      reference: q.reference,
      status: q.status,
      createdAfter: q.created_after,
      createdBefore: q.created_before,
      startingAfter: q.starting_after,
    });
    if (!rows)
      throw new ApiError('order_not_found', `starting_after: no order with id ${q.starting_after ?? ''}.`, {
        param: 'starting_after',
      });
    return { orders: rows.slice(0, q.limit).map((r) => r.order), has_more: rows.length > q.limit };
  }

  async tracking(ctx: PartnerContext, orderId: string): Promise<Tracking> {
    const { readModels } = this.deps;
    await Promise.all([readModels.catchUp(ordersList.name), readModels.catchUp(riderPositions.name)]);
    const [stored, position] = await Promise.all([
      readModels.store.get<OrderListEntry>(ordersList.collection, orderId),
      readModels.store.get<RiderPositionDocument>(riderPositions.collection, orderId),
    ]);
    const doc = stored?.doc;
    if (!doc || doc.partner_id !== ctx.partnerId || doc.environment !== ctx.environment) {
      throw new ApiError('order_not_found', `No order with id ${orderId}.`, { param: 'order_id' });
    }
    const { order } = doc;
    // A position from before this rider was assigned is the previous rider's (reassigned).
    const recorded = position?.doc.location ?? null;
    const location = recorded && (!doc.rider_since || recorded.updated_at >= doc.rider_since) ? recorded : null;
    const now = this.deps.clock.now().getTime();
    const rider =
      order.rider && RIDER_VISIBLE.has(order.status)
        ? extend(order.rider, {
            location: location
              ? extend(location, { stale: now - Date.parse(location.updated_at) > STALE_POSITION_MS })
              : null,
          })
        : null;
    return {
      order_id: order.order_id,
      status: order.status,
      fulfilment: order.fulfilment,
      timeline: doc.timeline,
      rider,
    };
  }
}

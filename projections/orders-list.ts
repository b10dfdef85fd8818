import { ORDER_STREAM_PREFIX, orderIdOf } from '../src/domain/order/events.js';
import type { OrderView } from '../src/domain/order/state.js';
import { foldOrderView } from './order-view.js';
import type { Projection } from './projection.js';

/** What GET /v1/orders lists and filters on, the whole order to answer with, and its status timeline (tracking). */
export interface OrderListEntry {
  id: string;
  partner_id: string;
  environment: 'live' | 'sandbox';
  reference: string | null;
  /** The number people read out (support finds an order by it). */
  order_number: string;
  status: string;
  created_at: string;
  updated_at: string;
  /** Each public status the order entered, in order of occurrence (GET /v1/orders/{id}/tracking). */
  timeline: Array<{ status: string; at: string }>;
  /** When the current rider was assigned: positions recorded before it were another rider's. */
  rider_since?: string | null;
  order: OrderView;
}

export const ordersList: Projection<OrderListEntry> = {
  name: 'orders-list',
  collection: 'orders',
  streamPrefixes: [ORDER_STREAM_PREFIX],
  indexes: [
    { partner_id: 1, environment: 1, created_at: -1, _id: -1 },
    { partner_id: 1, environment: 1, reference: 1 },
    { partner_id: 1, environment: 1, status: 1, created_at: -1 },
    { order_number: 1 },
    // The operators' console (OrderSearch): across partners, newest first, with no filter or one.
    { created_at: -1, _id: -1 },
    { status: 1, created_at: -1, _id: -1 },
    { environment: 1, created_at: -1, _id: -1 },
    { partner_id: 1, created_at: -1, _id: -1 },
    { reference: 1, created_at: -1, _id: -1 },
  ],
  documentId: (e) => orderIdOf(e.streamId),
  evolve: (doc, e) => ordersList.evolveAll!(doc, [e])!.doc,
  evolveAll(doc, events) {
    const { view: order, steps } = foldOrderView(doc?.order ?? null, events);
    // Events that change no status (payment, rider assignment) add no entry.
    const timeline = [...(doc?.timeline ?? [])];
    for (const step of steps) if (timeline[timeline.length - 1]?.status !== step.status) timeline.push(step);
    let riderSince = doc?.rider_since ?? null;
    for (const e of events) {
      const at = (e.data as { at?: unknown }).at;
      if (e.type === 'RiderAssigned' && typeof at === 'string') riderSince = at;
    }
    const entry: OrderListEntry = {
      id: order.order_id,
      partner_id: order.partner_id,
      environment: order.environment,
      reference: order.reference,
      order_number: order.order_number,
      status: order.status,
      created_at: order.created_at,
      updated_at: order.updated_at,
      timeline,
      rider_since: riderSince,
      order,
    };
    return { doc: entry, absorbed: events };
  },
};

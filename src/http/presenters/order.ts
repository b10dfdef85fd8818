import type { z } from 'zod';
import { toMajor } from '../../domain/money.js';
import type { OrderView } from '../../domain/order/state.js';
import type { OrderSchema } from '../schemas/order.js';

export type PublicOrder = z.infer<typeof OrderSchema>;

/** The order as partners see it: minor units become the currency's decimal numbers here, and only here. */
export function toPublicOrder(o: OrderView): PublicOrder {
  const money = (minor: number) => toMajor(minor, o.currency);
  return {
    id: o.order_id,
    object: 'order',
    environment: o.environment,
    reference: o.reference,
    order_number: o.order_number,
    status: o.status,
    fulfilment: o.fulfilment,
    store: o.store,
    pricing: {
      subtotal: money(o.pricing.subtotal),
      delivery_fee: money(o.pricing.delivery_fee),
      tip: money(o.pricing.tip),
      discount: money(o.pricing.discount),
      total: money(o.pricing.total),
      currency: o.currency,
    },
    payment: { method: o.payment_method, status: o.payment_status, refunded_amount: money(o.refunded_total) },
    lines: o.lines.map((l) => ({
      item_id: l.item_id,
      name: l.name,
      quantity: l.quantity,
      unit_price: money(l.unit_price),
      options: l.options.map((op) => ({ ...op, price: money(op.price) })),
      line_total: money(l.line_total),
    })),
    customer: o.customer,
    delivery_address: o.delivery_address,
    promo_code: o.promo_code,
    offer_id: o.offer_id,
    cancellation: o.cancellation ? { by: o.cancellation.by, reason: o.cancellation.reason } : null,
    created_at: o.created_at,
    updated_at: o.updated_at,
  };
}

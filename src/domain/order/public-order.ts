import type { Environment } from '../environment.js';
import { toMajor } from '../money.js';
import type { Fulfilment, PaymentMethod } from './events.js';
import type { OrderStatus, PaymentStatus } from './machine.js';
import type { OrderView } from './state.js';
import { extend } from '../../shared/objects.js';

/**
 * An order as partners see it, in API answers and webhooks alike. The OpenAPI `Order` schema
 * (src/http/schemas/order.ts) describes exactly this type; a compile-time check there keeps them equal.
 */
export interface PublicOrder {
  id: string;
  object: 'order';
  environment: Environment;
  /** The spec types it `string`: an order placed without one has '' (a sent reference is never empty). */
  reference: string;
  order_number: string;
  status: OrderStatus;
  fulfilment: Fulfilment;
  store: { id: string; name: string };
  pricing: { subtotal: number; delivery_fee: number; tip: number; discount: number; total: number; currency: string };
  payment: { method: PaymentMethod; status: PaymentStatus; refunded_amount: number };
  lines: {
    item_id: string;
    name: string;
    quantity: number;
    unit_price: number;
    options: { id: string; group_id: string; name: string; price: number }[];
    line_total: number;
  }[];
  customer: { name: string; phone: string };
  delivery_address: Record<string, unknown> | null;
  promo_code: string | null;
  offer_id: string | null;
  /** The delivery quote the order was placed with, and the estimate it starts from (null without one). */
  quote_id: string | null;
  estimated_minutes: number | null;
  cancellation: { by: string; reason: string | null } | null;
  created_at: string;
  updated_at: string;
}

/** The order as partners see it: minor units become the currency's decimal numbers here, and only here. */
export function toPublicOrder(o: OrderView): PublicOrder {
  const money = (minor: number) => toMajor(minor, o.currency);
  return {
    id: o.order_id,
    object: 'order',
    environment: o.environment,
    reference: o.reference ?? '',
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
      options: l.options.map((op) => extend(op, { price: money(op.price) })),
      line_total: money(l.line_total),
    })),
    customer: o.customer,
    delivery_address: o.delivery_address,
    promo_code: o.promo_code,
    offer_id: o.offer_id,
    quote_id: o.quote?.id ?? null,
    estimated_minutes: o.quote?.estimated_minutes ?? null,
    cancellation: o.cancellation ? { by: o.cancellation.by, reason: o.cancellation.reason } : null,
    created_at: o.created_at,
    updated_at: o.updated_at,
  };
}

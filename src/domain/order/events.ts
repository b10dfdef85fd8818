import type { Environment } from '../environment.js';
import type { Currency } from '../money.js';

/**
 * The facts of an order's life. They are stored as-is in the order's stream (`type` is the stored
 * event type, `data` its JSON body) and they are also the events of the order machine.
 * Every `data` carries `at` (ISO 8601) so a fold never needs the event metadata.
 * Money is always an integer count of minor units of the order's currency.
 */

/** Each order's facts are in its own stream, `order-<orderId>` (EventStoreDB's `$ce-order` category). */
export const ORDER_STREAM_PREFIX = 'order-';
export const orderStream = (orderId: string): string => `${ORDER_STREAM_PREFIX}${orderId}`;
/** The order id of an order stream; null for any other stream. */
export const orderIdOf = (streamId: string): string | null =>
  streamId.startsWith(ORDER_STREAM_PREFIX) ? streamId.slice(ORDER_STREAM_PREFIX.length) : null;

export type Fulfilment = 'delivery' | 'pickup';
export type PaymentMethod = 'cash' | 'card';

export interface OrderLineOption {
  id: string;
  group_id: string;
  name: string;
  price: number;
}

export interface OrderLine {
  item_id: string;
  name: string;
  quantity: number;
  unit_price: number;
  options: OrderLineOption[];
  line_total: number;
}

export interface Pricing {
  subtotal: number;
  delivery_fee: number;
  tip: number;
  discount: number;
  total: number;
}

export interface Rider {
  name: string;
  phone: string;
  vehicle: string;
}

export type AcceptedBy = 'restaurant' | 'auto' | 'sandbox' | 'support';
export type CancelledBy = 'partner' | 'restaurant' | 'support';

export interface OrderPlacedData {
  order_id: string;
  environment: Environment;
  partner_id: string;
  reference: string | null;
  order_number: string;
  store: { id: string; name: string };
  currency: Currency;
  fulfilment: Fulfilment;
  lines: OrderLine[];
  customer: { name: string; phone: string };
  /** The address as the partner sent it (validated at the edge); null for pickup. */
  delivery_address: Record<string, unknown> | null;
  payment_method: PaymentMethod;
  pricing: Pricing;
  promo_code: string | null;
  offer_id: string | null;
  /** The delivery quote the order was placed with (its fee is `pricing.delivery_fee`); absent without one. */
  quote?: { id: string; delivery_fee: number; estimated_minutes: number };
  placed_at: string;
  at: string;
}

interface Fact<T extends string, D extends object = object> {
  type: T;
  data: D & { at: string };
}

export type OrderPlaced = { type: 'OrderPlaced'; data: OrderPlacedData };
export type OrderAccepted = Fact<'OrderAccepted', { by: AcceptedBy }>;
export type OrderPreparationStarted = Fact<'OrderPreparationStarted'>;
export type OrderPacked = Fact<'OrderPacked'>;
export type RiderAssigned = Fact<'RiderAssigned', { rider: Rider }>;
export type OrderPickedUp = Fact<'OrderPickedUp'>;
export type OrderDelivered = Fact<'OrderDelivered'>;
export type OrderCollected = Fact<'OrderCollected'>;
export type OrderCancelled = Fact<'OrderCancelled', { by: CancelledBy; reason: string | null }>;
export type PaymentSucceeded = Fact<'PaymentSucceeded', { amount: number; provider_ref: string }>;
export type PaymentFailed = Fact<'PaymentFailed', { reason: string }>;
/** `refunded_total` is cumulative (all refunds so far including this one). */
export type OrderRefunded = Fact<'OrderRefunded', { amount: number; refunded_total: number }>;

export type OrderEvent =
  | OrderPlaced
  | OrderAccepted
  | OrderPreparationStarted
  | OrderPacked
  | RiderAssigned
  | OrderPickedUp
  | OrderDelivered
  | OrderCollected
  | OrderCancelled
  | PaymentSucceeded
  | PaymentFailed
  | OrderRefunded;

export type OrderEventType = OrderEvent['type'];

export const ORDER_EVENT_TYPES = [
  'OrderPlaced',
  'OrderAccepted',
  'OrderPreparationStarted',
  'OrderPacked',
  'RiderAssigned',
  'OrderPickedUp',
  'OrderDelivered',
  'OrderCollected',
  'OrderCancelled',
  'PaymentSucceeded',
  'PaymentFailed',
  'OrderRefunded',
] as const satisfies readonly OrderEventType[];

// Compile-time check that the list above names every event of the union.
const _everyTypeListed: [Exclude<OrderEventType, (typeof ORDER_EVENT_TYPES)[number]>] extends [never] ? true : never =
  true;

export function isOrderEventType(type: string): type is OrderEventType {
  return (ORDER_EVENT_TYPES as readonly string[]).includes(type);
}

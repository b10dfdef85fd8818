import type { OrderEvent, OrderPlacedData, Rider } from '../../src/domain/order/events.js';

/** Event builders and ready-made histories for order domain tests. Minute n -> a fixed timestamp. */
export const at = (minute: number): string => `2026-10-12T10:${String(minute).padStart(2, '0')}:00.000Z`;

export const TOTAL = 2500; // KWD 2.500 in fils

export function placedData(over: Partial<OrderPlacedData> = {}): OrderPlacedData {
  return {
    order_id: 'sbx_ord_1',
    environment: 'sandbox',
    partner_id: 'ptn_1',
    reference: 'ref-1',
    order_number: '1001',
    store: { id: 'st_1', name: 'Shawarma House' },
    currency: 'KWD',
    fulfilment: 'delivery',
    lines: [
      {
        item_id: 'it_1',
        name: 'Chicken shawarma',
        quantity: 2,
        unit_price: 1000,
        options: [{ id: 'op_1', group_id: 'gr_1', name: 'Extra garlic', price: 100 }],
        line_total: 2200,
      },
    ],
    customer: { name: 'Sara', phone: '+96550001111' },
    delivery_address: { line1: 'Block 1, Street 2', area: 'Salmiya', location: { lat: 29.33, lng: 48.07 } },
    payment_method: 'cash',
    pricing: { subtotal: 2200, delivery_fee: 500, tip: 0, discount: 200, total: TOTAL },
    promo_code: null,
    offer_id: null,
    placed_at: at(0),
    at: at(0),
    ...over,
  };
}

export const RIDER: Rider = { name: 'Ali', phone: '+96550002222', vehicle: 'motorbike' };

export const ev = {
  placed: (over: Partial<OrderPlacedData> = {}): OrderEvent => ({ type: 'OrderPlaced', data: placedData(over) }),
  accepted: (m = 1): OrderEvent => ({ type: 'OrderAccepted', data: { by: 'restaurant', at: at(m) } }),
  started: (m = 2): OrderEvent => ({ type: 'OrderPreparationStarted', data: { at: at(m) } }),
  packed: (m = 3): OrderEvent => ({ type: 'OrderPacked', data: { at: at(m) } }),
  rider: (m = 4, rider: Rider = RIDER): OrderEvent => ({ type: 'RiderAssigned', data: { rider, at: at(m) } }),
  pickedUp: (m = 5): OrderEvent => ({ type: 'OrderPickedUp', data: { at: at(m) } }),
  delivered: (m = 6): OrderEvent => ({ type: 'OrderDelivered', data: { at: at(m) } }),
  collected: (m = 6): OrderEvent => ({ type: 'OrderCollected', data: { at: at(m) } }),
  cancelled: (
    by: 'partner' | 'restaurant' | 'support' = 'partner',
    m = 7,
    reason: string | null = null,
  ): OrderEvent => ({
    type: 'OrderCancelled',
    data: { by, reason, at: at(m) },
  }),
  paid: (m = 1, amount = TOTAL): OrderEvent => ({
    type: 'PaymentSucceeded',
    data: { amount, provider_ref: 'pi_1', at: at(m) },
  }),
  failed: (m = 1): OrderEvent => ({ type: 'PaymentFailed', data: { reason: 'card_declined', at: at(m) } }),
  refunded: (amount: number, refunded_total: number, m = 8): OrderEvent => ({
    type: 'OrderRefunded',
    data: { amount, refunded_total, at: at(m) },
  }),
};

const pickup = { fulfilment: 'pickup', delivery_address: null } as const;

/** Histories that reach each status, per kind of order. */
export const history = {
  cashDelivery: {
    placed: [ev.placed()],
    confirmed: [ev.placed(), ev.accepted()],
    preparing: [ev.placed(), ev.accepted(), ev.started()],
    ready: [ev.placed(), ev.accepted(), ev.started(), ev.packed()],
    readyWithRider: [ev.placed(), ev.accepted(), ev.started(), ev.packed(), ev.rider()],
    out_for_delivery: [ev.placed(), ev.accepted(), ev.started(), ev.packed(), ev.rider(), ev.pickedUp()],
    delivered: [ev.placed(), ev.accepted(), ev.started(), ev.packed(), ev.rider(), ev.pickedUp(), ev.delivered()],
  },
  cashPickup: {
    placed: [ev.placed(pickup)],
    confirmed: [ev.placed(pickup), ev.accepted()],
    preparing: [ev.placed(pickup), ev.accepted(), ev.started()],
    ready: [ev.placed(pickup), ev.accepted(), ev.started(), ev.packed()],
    completed: [ev.placed(pickup), ev.accepted(), ev.started(), ev.packed(), ev.collected()],
  },
  card: {
    pending: [ev.placed({ payment_method: 'card' })],
    failed: [ev.placed({ payment_method: 'card' }), ev.failed()],
    paid: [ev.placed({ payment_method: 'card' }), ev.paid()],
  },
};

export const PICKUP = pickup;

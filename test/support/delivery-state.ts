import type { DeliveryState } from '../../src/domain/webhook/delivery-state.js';

/** A delivery as the scheduler tracks it: pending, never attempted, due at `at`, unless overridden. */
export function deliveryState(id: string, at: string, over: Partial<DeliveryState> = {}): DeliveryState {
  return {
    id,
    partner_id: 'ptn_1',
    environment: 'sandbox',
    event_id: `evt_${id}`,
    event_type: 'order.created',
    order_id: `ord_${id}`,
    order_revision: 1,
    type_index: 0,
    url: 'https://example.com/hook',
    status: 'pending',
    attempt_count: 0,
    scheduled_attempts: 0,
    next_attempt_at: at,
    redelivery_requested_at: null,
    created_at: at,
    updated_at: at,
    attempts: [],
    sending: null,
    abandoned_claims: 0,
    ...over,
  };
}

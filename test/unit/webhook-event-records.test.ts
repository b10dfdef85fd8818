import { describe, expect, it } from 'vitest';
import {
  afterInstant,
  eventSortKey,
  evolveEventRecord,
  type EventRecord,
  type CausedEvent,
} from '../../src/domain/webhook/event-records.js';
import type { DeliveryEvent } from '../../src/domain/webhook/delivery-events.js';
import type { WebhookEnvelope } from '../../src/domain/webhook/envelope.js';

const T = '2026-11-21T12:00:00.000Z';
const envelope: WebhookEnvelope = {
  id: 'evt_1',
  object: 'event',
  type: 'order.created',
  created: T,
  environment: 'sandbox',
  data: { message: 'x', partner_id: 'ptr_1' },
};
const owner = {
  partner_id: 'ptr_1',
  environment: 'sandbox' as const,
  order_id: 'sbx_1',
  order_revision: 0,
  type_index: 0,
};
const recorded: CausedEvent = {
  type: 'WebhookEventCaused',
  data: { ...owner, event: { id: envelope.id, type: envelope.type, created: envelope.created } },
};
const scheduled: DeliveryEvent = {
  type: 'WebhookDeliveryScheduled',
  data: {
    ...owner,
    delivery_id: 'whd_1',
    event_id: 'evt_1',
    event_type: 'order.created',
    url: 'https://hooks.example.com/',
    event: envelope,
    at: T,
    next_attempt_at: T,
  },
};
const attempt = (trigger: 'schedule' | 'redelivery', next: string | null) => ({
  delivery_id: 'whd_1',
  attempt: 1,
  trigger,
  url: 'https://hooks.example.com/',
  at: T,
  status: 500,
  duration_ms: 3,
  error: 'receiver answered HTTP 500',
  next_attempt_at: next,
});
const fold = (events: Array<CausedEvent | DeliveryEvent>) =>
  events.reduce<EventRecord | null>((doc, e) => evolveEventRecord(doc, e) ?? doc, null);

describe('the events read model fold', () => {
  it('when an order event caused it and no endpoint took it, then it has no delivery, and no body of its own (the order has it)', () => {
    expect(fold([recorded])).toMatchObject({
      event_id: 'evt_1',
      event: null,
      delivery_id: null,
      delivery_status: null,
      delivery_success: null,
    });
  });

  it('when its delivery fails, is retried, then a redelivery succeeds, then success follows the latest attempt', () => {
    const failed: DeliveryEvent = { type: 'WebhookAttemptFailed', data: attempt('schedule', T) };
    expect(fold([scheduled, failed])).toMatchObject({ delivery_status: 'retrying', delivery_success: false });
    const redelivered: DeliveryEvent = { type: 'WebhookAttemptSucceeded', data: attempt('redelivery', null) };
    expect(fold([scheduled, failed, redelivered])).toMatchObject({
      delivery_status: 'succeeded',
      delivery_success: true,
    });
    const again: DeliveryEvent = { type: 'WebhookAttemptFailed', data: attempt('redelivery', null) };
    expect(fold([scheduled, failed, redelivered, again])).toMatchObject({
      delivery_status: 'succeeded',
      delivery_success: false,
    });
  });

  it('when recorded and scheduled both (a source event handled twice), then one record with the delivery', () => {
    const withDelivery = { event: envelope, delivery_id: 'whd_1', delivery_status: 'pending' };
    expect(fold([recorded, scheduled])).toMatchObject(withDelivery);
    expect(fold([scheduled, recorded])).toMatchObject(withDelivery);
  });

  it('when events share an instant, then the sort key orders them by revision and type, and bounds on the instant hold', () => {
    const keys = [eventSortKey(T, 10, 0), eventSortKey(T, 2, 1), eventSortKey(T, 2, 0), eventSortKey(T, null, 0)];
    expect([...keys].sort()).toEqual([keys[3], keys[2], keys[1], keys[0]]);
    for (const k of keys) {
      expect(k > T).toBe(true);
      expect(k < afterInstant(T)).toBe(true);
    }
    expect(eventSortKey('2026-11-21T12:00:00.001Z', 0, 0) > afterInstant(T)).toBe(true);
  });
});

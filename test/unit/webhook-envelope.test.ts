import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../src/domain/order/events.js';
import { evolve, rehydrate } from '../../src/domain/order/state.js';
import { toPublicOrder } from '../../src/domain/order/public-order.js';
import { orderEnvelopes, orderWebhookTypes, testEnvelope, webhookEventId } from '../../src/domain/webhook/envelope.js';
import { at, ev, TOTAL } from './order-fixtures.js';

/** The webhook types of the last event of `events`, folded through the real order machine. */
function typesAfter(events: OrderEvent[]) {
  const before = rehydrate(events.slice(0, -1));
  const last = events[events.length - 1]!;
  return orderWebhookTypes(last.type, before.order, evolve(before, last).order!);
}

const delivered = [ev.placed(), ev.accepted(), ev.started(), ev.packed(), ev.rider(), ev.pickedUp(), ev.delivered()];
const card = { payment_method: 'card' } as const;

describe('orderWebhookTypes (the documented mapping)', () => {
  it.each([
    ['OrderPlaced', [ev.placed()], ['order.created']],
    ['OrderAccepted', [ev.placed(), ev.accepted()], ['order.status_changed']],
    ['OrderPreparationStarted', [ev.placed(), ev.accepted(), ev.started()], ['order.status_changed']],
    ['RiderAssigned (no public change)', delivered.slice(0, 5), []],
    ['OrderPickedUp', delivered.slice(0, 6), ['order.status_changed']],
    [
      'OrderDelivered of a cash order (cash becomes paid)',
      delivered,
      ['order.status_changed', 'order.payment_updated'],
    ],
    ['OrderCancelled', [ev.placed(), ev.cancelled()], ['order.status_changed']],
    ['PaymentSucceeded', [ev.placed(card), ev.paid()], ['order.payment_updated']],
    ['PaymentFailed', [ev.placed(card), ev.failed()], ['order.payment_updated']],
    [
      'PaymentFailed again (status stays failed)',
      [ev.placed(card), ev.failed(1), ev.failed(2)],
      ['order.payment_updated'],
    ],
    [
      'a partial refund',
      [...delivered, ev.refunded(500, 500)],
      ['order.status_changed', 'order.payment_updated', 'order.refunded'],
    ],
    [
      'a second partial refund',
      [...delivered, ev.refunded(500, 500), ev.refunded(500, 1000, 9)],
      ['order.payment_updated', 'order.refunded'],
    ],
    [
      'the final refund',
      [...delivered, ev.refunded(500, 500), ev.refunded(TOTAL - 500, TOTAL, 9)],
      ['order.status_changed', 'order.payment_updated', 'order.refunded'],
    ],
  ] as const)('when the event is %s, then it sends %j', (_name, events, expected) => {
    expect(typesAfter([...events])).toEqual(expected);
  });

  it('when a card order is delivered (already paid), then only its status changes', () => {
    const cardDelivered = [
      ev.placed(card),
      ev.paid(1),
      ev.accepted(2),
      ev.started(3),
      ev.packed(4),
      ev.rider(5),
      ev.pickedUp(6),
      ev.delivered(7),
    ];
    expect(typesAfter(cardDelivered)).toEqual(['order.status_changed']);
  });
});

describe('orderEnvelopes', () => {
  const source = { id: '5f0c6a2e-8d9b-4c1e-9a57-3f1b2c4d5e6f', type: 'OrderDelivered' as const };
  const before = rehydrate(delivered.slice(0, -1)).order!;
  const after = rehydrate(delivered).order!;

  it('when built, then each is exactly the spec envelope with the order as it was right after the event', () => {
    const [status, payment] = orderEnvelopes(source, before, after);
    expect(Object.keys(status!)).toEqual(['id', 'object', 'type', 'created', 'environment', 'data']);
    expect(status).toEqual({
      id: webhookEventId(source.id, 'order.status_changed'),
      object: 'event',
      type: 'order.status_changed',
      created: at(6),
      environment: 'sandbox',
      data: { order: toPublicOrder(after), previous_status: 'out_for_delivery' },
    });
    expect(payment).toEqual({
      ...status,
      id: webhookEventId(source.id, 'order.payment_updated'),
      type: 'order.payment_updated',
      data: { order: toPublicOrder(after) },
    });
    expect(payment!.data).not.toHaveProperty('previous_status');
  });

  it('when built twice from the same stored event, then the ids are the same; per type they differ', () => {
    const first = orderEnvelopes(source, before, after).map((e) => e.id);
    expect(orderEnvelopes(source, before, after).map((e) => e.id)).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
    expect(first[0]).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(orderEnvelopes({ ...source, id: 'another-event' }, before, after)[0]!.id).not.toBe(first[0]);
  });

  it('when the order changed later, then an envelope of an earlier event still shows the earlier order', () => {
    const confirmed = rehydrate(delivered.slice(0, 2)).order!;
    const [envelope] = orderEnvelopes(
      { id: 'e-1', type: 'OrderAccepted' },
      rehydrate(delivered.slice(0, 1)).order,
      confirmed,
    );
    expect(envelope!.data).toMatchObject({
      order: { status: 'confirmed', updated_at: at(1) },
      previous_status: 'placed',
    });
  });
});

describe('testEnvelope', () => {
  it('when built, then it is a webhook.test event with the documented data', () => {
    const e = testEnvelope({ sourceId: 'req-1', partnerId: 'ptr_1', environment: 'live', created: at(0) });
    expect(e).toEqual({
      id: webhookEventId('req-1', 'webhook.test'),
      object: 'event',
      type: 'webhook.test',
      created: at(0),
      environment: 'live',
      data: { message: expect.stringContaining('POST /v1/webhooks/test'), partner_id: 'ptr_1' },
    });
  });
});

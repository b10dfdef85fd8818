import { describe, expect, it } from 'vitest';
import { applyEvent, type ProjectedEvent } from '../../projections/projection.js';
import { webhookDeliveries } from '../../projections/webhook-deliveries.js';
import type { StoredDocument } from '../../src/ports/read-model-store.js';
import { deliveryStream, type AttemptData, type DeliveryEvent } from '../../src/domain/webhook/delivery-events.js';
import { dueAt, foldDelivery, type DeliveryState } from '../../src/domain/webhook/delivery-state.js';
import { testEnvelope } from '../../src/domain/webhook/envelope.js';

const ID = 'whd_1';
const T0 = '2026-11-21T12:00:00.000Z';
const envelope = testEnvelope({ sourceId: 's', partnerId: 'ptr_1', environment: 'sandbox', created: T0 });

const scheduled: DeliveryEvent = {
  type: 'WebhookDeliveryScheduled',
  data: {
    delivery_id: ID,
    partner_id: 'ptr_1',
    environment: 'sandbox',
    event_id: envelope.id,
    event_type: 'webhook.test',
    order_id: null,
    order_revision: null,
    type_index: 0,
    url: 'https://a.example.com/',
    event: envelope,
    at: T0,
    next_attempt_at: T0,
  },
};
const attempt = (over: Partial<AttemptData>): AttemptData => ({
  delivery_id: ID,
  attempt: 1,
  trigger: 'schedule',
  url: 'https://b.example.com/',
  at: T0,
  status: 500,
  duration_ms: 12,
  error: 'receiver answered HTTP 500',
  next_attempt_at: '2026-11-21T12:01:00.000Z',
  ...over,
});
const failed = (over: Partial<AttemptData> = {}): DeliveryEvent => ({
  type: 'WebhookAttemptFailed',
  data: attempt(over),
});
const succeeded = (over: Partial<AttemptData> = {}): DeliveryEvent => ({
  type: 'WebhookAttemptSucceeded',
  data: attempt({ status: 200, error: null, next_attempt_at: null, ...over }),
});

describe('the delivery fold', () => {
  it('when scheduled, then pending and due at once', () => {
    const s = foldDelivery([scheduled])!;
    expect(s).toMatchObject({
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: T0,
      created_at: T0,
      url: 'https://a.example.com/',
    });
    expect(dueAt(s)).toBe(T0);
  });

  it('when an attempt fails with a next time, then retrying until then; the URL is where it went', () => {
    const s = foldDelivery([scheduled, failed()])!;
    expect(s).toMatchObject({
      status: 'retrying',
      attempt_count: 1,
      scheduled_attempts: 1,
      next_attempt_at: '2026-11-21T12:01:00.000Z',
      url: 'https://b.example.com/',
    });
    expect(s.attempts).toEqual([
      {
        at: T0,
        trigger: 'schedule',
        url: 'https://b.example.com/',
        status: 500,
        duration_ms: 12,
        error: 'receiver answered HTTP 500',
      },
    ]);
  });

  it('when the last attempt fails, then failed and due never', () => {
    const s = foldDelivery([
      scheduled,
      failed({ next_attempt_at: null }),
      { type: 'WebhookDeliveryFailed', data: { delivery_id: ID, at: T0, attempts: 7 } },
    ])!;
    expect(s).toMatchObject({ status: 'failed', next_attempt_at: null });
    expect(dueAt(s)).toBeNull();
  });

  it('when a redelivery fails, then the status and schedule stay; when one succeeds, then succeeded', () => {
    const retrying = [scheduled, failed()];
    const request: DeliveryEvent = {
      type: 'WebhookRedeliveryRequested',
      data: { delivery_id: ID, at: T0, request_id: 'req_1' },
    };
    const afterFailed = foldDelivery([...retrying, request, failed({ trigger: 'redelivery', next_attempt_at: null })])!;
    expect(afterFailed).toMatchObject({
      status: 'retrying',
      attempt_count: 2,
      scheduled_attempts: 1,
      next_attempt_at: '2026-11-21T12:01:00.000Z',
      redelivery_requested_at: T0,
    });
    expect(foldDelivery([...retrying, request, succeeded({ trigger: 'redelivery' })])).toMatchObject({
      status: 'succeeded',
      next_attempt_at: null,
      attempt_count: 2,
    });
  });

  it('when events come before the delivery was scheduled, then there is nothing to show', () => {
    expect(foldDelivery([failed()])).toBeNull();
  });
});

describe('the webhook-deliveries projection', () => {
  const recorded = [scheduled, failed(), succeeded({ attempt: 2 })].map((e, revision): ProjectedEvent => ({
    id: `e${revision}`,
    streamId: deliveryStream(ID),
    type: e.type,
    revision,
    position: BigInt(revision + 1),
    data: e.data as never,
    metadata: {},
  }));
  const project = (events: ProjectedEvent[]) =>
    events.reduce<StoredDocument<DeliveryState> | null>((doc, e) => applyEvent(webhookDeliveries, doc, e) ?? doc, null);

  it('when every event is applied twice, then the document is the same as applying each once', () => {
    const once = project(recorded);
    const twice = project(recorded.flatMap((e) => [e, e]));
    expect(twice).toEqual(once);
    expect(once?.doc).toEqual(foldDelivery([scheduled, failed(), succeeded({ attempt: 2 })]));
    expect(once?.id).toBe(ID);
  });

  it("when an event of another stream arrives, then it is not this projection's", () => {
    expect(webhookDeliveries.documentId({ ...recorded[0]!, streamId: 'order-1' })).toBeNull();
  });
});

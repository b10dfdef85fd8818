import { z } from 'zod';
import { sha256Hex } from '../../shared/ids.js';
import { ENVIRONMENTS, type Environment } from '../environment.js';
import { ORDER_STATUSES } from '../order/machine.js';
import type { OrderEventType } from '../order/events.js';
import type { OrderView } from '../order/state.js';
import { toPublicOrder, type PublicOrder } from '../order/public-order.js';
import type { EventType } from './event-types.js';

/** The JSON body of a webhook (spec "Envelope"). */
export interface WebhookEnvelope {
  id: string;
  object: 'event';
  type: EventType;
  created: string;
  environment: Environment;
  data: { order: PublicOrder; previous_status?: string } | WebhookTestData;
}

export interface WebhookTestData {
  message: string;
  partner_id: string;
}

export type OrderWebhookType = Exclude<EventType, 'webhook.test'>;

/**
 * The body of each event type, with the order's own schema passed in (the HTTP layer documents it;
 * the builders below check their envelopes with the order left open). One schema per event type,
 * so a new type cannot be sent without one; the OpenAPI document's `webhooks` are built from these.
 */
export function webhookEnvelopeSchemas<O extends z.ZodType>(order: O) {
  const envelope = <T extends EventType, D extends z.ZodType>(type: T, data: D) =>
    z
      .object({
        id: z.string().regex(/^evt_[0-9a-f]{32}$/),
        object: z.literal('event'),
        type: z.literal(type),
        created: z.iso.datetime(),
        environment: z.enum(ENVIRONMENTS),
        data,
      })
      .strict();
  const orderData = z.object({ order }).strict();
  return {
    'order.created': envelope('order.created', orderData),
    'order.status_changed': envelope(
      'order.status_changed',
      z.object({ order, previous_status: z.enum(ORDER_STATUSES) }).strict(),
    ),
    'order.payment_updated': envelope('order.payment_updated', orderData),
    'order.refunded': envelope('order.refunded', orderData),
    'webhook.test': envelope('webhook.test', z.object({ message: z.string(), partner_id: z.string() }).strict()),
  } satisfies Record<EventType, z.ZodObject>;
}

const CHECKED = webhookEnvelopeSchemas(z.object({ id: z.string(), object: z.literal('order') }));

/** Throws when an envelope does not match its type's schema; returns it unchanged (same bytes on the wire). */
function checked(envelope: WebhookEnvelope): WebhookEnvelope {
  CHECKED[envelope.type].parse(envelope);
  return envelope;
}

/**
 * `evt_` + 128 bits of SHA-256 over the source event id and the type: the same stored event always
 * gives the same webhook id (a replay of the subscription, a retry, a redelivery), and one source
 * event that yields several types gives each its own id.
 */
export function webhookEventId(sourceEventId: string, type: EventType): string {
  return `evt_${sha256Hex(`${sourceEventId}:${type}`).slice(0, 32)}`;
}

/**
 * Which webhooks one order event produces, from the public order before and after it. Each type
 * whose condition holds is sent, in this order:
 * - order.created: OrderPlaced (and nothing else for that event);
 * - order.status_changed: the public status differs (a refund that moves delivered -> refunded too);
 * - order.payment_updated: PaymentSucceeded / PaymentFailed, or any event that changes the public
 *   payment object (cash settled on delivery or collection, refunds);
 * - order.refunded: every OrderRefunded (partial or full).
 * RiderAssigned changes neither the status nor the payment, so it sends nothing.
 */
export function orderWebhookTypes(
  sourceType: OrderEventType,
  before: OrderView | null,
  after: OrderView,
): OrderWebhookType[] {
  if (sourceType === 'OrderPlaced' || !before) return ['order.created'];
  const types: OrderWebhookType[] = [];
  if (before.status !== after.status) types.push('order.status_changed');
  const paymentChanged =
    before.payment_status !== after.payment_status || before.refunded_total !== after.refunded_total;
  if (paymentChanged || sourceType === 'PaymentSucceeded' || sourceType === 'PaymentFailed')
    types.push('order.payment_updated');
  if (sourceType === 'OrderRefunded') types.push('order.refunded');
  return types;
}

/** The envelopes of one stored order event: `data.order` is the order right after that event. */
export function orderEnvelopes(
  source: { id: string; type: OrderEventType },
  before: OrderView | null,
  after: OrderView,
): WebhookEnvelope[] {
  const order = toPublicOrder(after);
  return orderWebhookTypes(source.type, before, after).map((type) =>
    checked({
      id: webhookEventId(source.id, type),
      object: 'event',
      type,
      // When the change happened: the event's own time, which is also the order's updated_at.
      created: after.updated_at,
      environment: after.environment,
      data: type === 'order.status_changed' && before ? { order, previous_status: before.status } : { order },
    }),
  );
}

export const TEST_EVENT_MESSAGE = 'This is a test event sent because you called POST /v1/webhooks/test.';

/** The body of a `webhook.test` event. `sourceId` is unique per request, so each test is a new event. */
export function testEnvelope(input: {
  sourceId: string;
  partnerId: string;
  environment: Environment;
  created: string;
}): WebhookEnvelope {
  return checked({
    id: webhookEventId(input.sourceId, 'webhook.test'),
    object: 'event',
    type: 'webhook.test',
    created: input.created,
    environment: input.environment,
    data: { message: TEST_EVENT_MESSAGE, partner_id: input.partnerId },
  });
}

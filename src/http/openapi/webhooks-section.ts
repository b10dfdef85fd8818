import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from './zod.js';
import { EVENT_TYPES, type EventType } from '../../domain/webhook/event-types.js';
import { webhookEnvelopeSchemas } from '../../domain/webhook/envelope.js';
import { OrderSchema } from '../schemas/order.js';
import { SIGNATURE_TOLERANCE_SEC, WEBHOOK_HEADER_NAMES } from '../../webhooks/signing.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../webhooks/retry-schedule.js';
import { DEFAULT_TIMEOUT_MS } from '../../webhooks/sender.js';
import { WEBHOOK_USER_AGENT } from '../../webhooks/user-agent.js';
import { WEBHOOK_EXAMPLES } from './examples.js';

const SUMMARIES: Record<EventType, { name: string; summary: string }> = {
  'order.created': { name: 'WebhookOrderCreated', summary: 'An order was created through the API' },
  'order.status_changed': {
    name: 'WebhookOrderStatusChanged',
    summary: 'The public status of an order changed (`data.previous_status` holds the earlier one)',
  },
  'order.payment_updated': { name: 'WebhookOrderPaymentUpdated', summary: 'The payment status of an order changed' },
  'order.refunded': { name: 'WebhookOrderRefunded', summary: 'An order was refunded (partially or fully)' },
  'webhook.test': { name: 'WebhookTest', summary: 'A test event you asked for (POST /v1/webhooks/test)' },
};

/** The envelope schema of every event type, with the order as GET /v1/orders/{order_id} documents it. */
export const WEBHOOK_ENVELOPES = webhookEnvelopeSchemas(OrderSchema);

const duration = (ms: number): string => {
  if (ms === 0) return 'at once';
  const minutes = ms / 60_000;
  return minutes < 60 ? `${minutes} min` : `${minutes / 60} h`;
};

/** How retries are scheduled, from the sender's own schedule. */
export const RETRY_TEXT =
  `Any 2xx answer within ${DEFAULT_TIMEOUT_MS / 1000} s acknowledges the event; redirects are not followed. ` +
  `Anything else is retried: attempt 1 is sent ${duration(RETRY_DELAYS_MS[0]!)}, then after waits of ` +
  `${RETRY_DELAYS_MS.slice(1).map(duration).join(', ')}; after ${MAX_ATTEMPTS} failed attempts the delivery ` +
  'is `failed` (send it again with POST /v1/webhooks/deliveries/{delivery_id}/redeliver). ' +
  'The same event may arrive more than once: deduplicate on `id`.';

/** How a receiver verifies the signature header. */
export const SIGNATURE_TEXT =
  `\`${WEBHOOK_HEADER_NAMES.signature}: t=<unix seconds>,v1=<hex>\`. Verify: take the raw body bytes, ` +
  'compute HMAC-SHA256 keyed with your whole `whsec_…` secret over `<t>.<raw body>`, hex-encode it, and ' +
  'accept when it equals any `v1` (compare in constant time; during a secret rotation there are two) and ' +
  `\`t\` is within ${SIGNATURE_TOLERANCE_SEC} s of your clock, either way. Code for Node.js and Python: docs/webhooks.md.`;

/** Adds the `webhooks` section: one POST per event type, with its payload, headers and retries. */
export function registerWebhooks(registry: OpenAPIRegistry): void {
  const headers = z.object({
    [WEBHOOK_HEADER_NAMES.signature]: z
      .string()
      .regex(/^t=\d+(,v1=[0-9a-f]{64})+$/)
      .openapi({ description: SIGNATURE_TEXT, example: `t=1760260502,v1=${'5f'.repeat(32)}` }),
    [WEBHOOK_HEADER_NAMES.eventId]: z.string().openapi({ description: 'The event `id` from the body.' }),
    [WEBHOOK_HEADER_NAMES.eventType]: z.enum(EVENT_TYPES).openapi({ description: 'The event `type` from the body.' }),
    [WEBHOOK_HEADER_NAMES.timestamp]: z
      .string()
      .regex(/^\d+$/)
      .openapi({ description: 'The `t` of the signature: when this attempt was signed.' }),
    'User-Agent': z
      .string()
      .regex(/^partner-ordering-service\/\S+ \(webhooks\)$/)
      .openapi({
        description:
          'The service and its version, the same on every delivery (to log or allow-list; it proves nothing: verify the signature).',
        example: WEBHOOK_USER_AGENT,
      }),
  });
  for (const type of EVENT_TYPES) {
    const { name, summary } = SUMMARIES[type];
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `webhook_${type.replace(/\./g, '_')}`,
      summary,
      description: `Sent to your registered endpoint (PUT /v1/webhooks/endpoint) as \`${type}\`.\n\n**Signature**: ${SIGNATURE_TEXT}\n\n**Retries**: ${RETRY_TEXT}`,
      tags: ['Webhooks'],
      request: {
        headers,
        body: {
          required: true,
          content: {
            'application/json': {
              schema: WEBHOOK_ENVELOPES[type].openapi(name),
              example: WEBHOOK_EXAMPLES[type],
            },
          },
        },
      },
      responses: {
        200: {
          description: `Any 2xx within ${DEFAULT_TIMEOUT_MS / 1000} s acknowledges the event; the body is ignored.`,
        },
      },
    });
  }
}

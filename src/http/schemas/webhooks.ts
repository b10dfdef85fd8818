import { z } from '../openapi/zod.js';
import { IsoTimestamp, queryNumber } from './common.js';
import { OrderSchema } from './order.js';
import { EVENT_TYPES } from '../../domain/webhook/event-types.js';
import { webhookEnvelopeSchemas } from '../../domain/webhook/envelope.js';

const EventTypeName = z.enum(EVENT_TYPES);
const DELIVERY_STATUSES = ['pending', 'succeeded', 'retrying', 'failed'] as const;

export const RegisterEndpointBody = z
  .object({
    url: z.string().min(1).max(2048).openapi({
      description:
        'https only; port 443 (the default) or 1024-65535; every address the host resolves to must be public.',
      example: 'https://hooks.example.com/orders',
    }),
    events: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(EVENT_TYPES.length * 2)
      .optional()
      .openapi({
        description:
          'The same list as `enabled_events` (its earlier name; give either, or both with the same types). ' +
          'Omitted means all (including types added later). Unknown names: 400.',
      }),
    enabled_events: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(EVENT_TYPES.length * 2)
      .optional()
      .openapi({
        description:
          'Event types to send; omitted means all (including types added later). `webhook.test` is always sent ' +
          'when you ask for it. Other events are still created and listed by GET /v1/events. Unknown names: 400.',
        example: ['order.created', 'order.status_changed'],
      }),
  })
  .strict()
  .openapi('RegisterWebhookEndpointRequest');

export const WebhookEndpointSchema = z
  .object({
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    events: z.array(EventTypeName).nullable().openapi({ description: 'The subscribed event types; null means all.' }),
    enabled_events: z
      .array(EventTypeName)
      .nullable()
      .openapi({ description: 'The same list as `events`; null means all.' }),
    secret_hint: z.string().openapi({ description: 'Last 4 characters of the current signing secret.' }),
    secret: z
      .string()
      .optional()
      .openapi({ description: 'The signing secret (`whsec_…`): only in the answer that created or rotated it.' }),
    previous_secret_expires_at: IsoTimestamp.nullable().openapi({
      description: 'During a rotation overlap: until when the replaced secret still signs.',
    }),
    created_at: IsoTimestamp,
    updated_at: IsoTimestamp,
  })
  .openapi('WebhookEndpoint');

const AttemptSchema = z.object({
  at: IsoTimestamp.openapi({ description: 'When the attempt started.' }),
  trigger: z.enum(['schedule', 'redelivery']),
  url: z.string(),
  status: z
    .int()
    .nullable()
    .openapi({ description: 'HTTP status of the reply; null when there was none (refused, timeout, URL check).' }),
  duration_ms: z.int(),
  error: z.string().nullable(),
});

export const WebhookDeliverySchema = z
  .object({
    id: z.string().openapi({ example: 'whd_9f2c…' }),
    object: z.literal('webhook_delivery'),
    event_id: z.string(),
    event_type: EventTypeName,
    order_id: z.string().nullable(),
    url: z
      .string()
      .openapi({ description: 'Where the last attempt went (the endpoint URL when scheduled, before any attempt).' }),
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.int(),
    next_attempt_at: IsoTimestamp.nullable(),
    created_at: IsoTimestamp,
    updated_at: IsoTimestamp,
    attempts: z.array(AttemptSchema).openapi({ description: 'Oldest first.' }),
    failure_reason: z.string().nullable().openapi({
      description:
        'Why the delivery was given up (status `failed`): every scheduled attempt failed, or the endpoint was deleted.',
    }),
  })
  .openapi('WebhookDelivery');

export const ListDeliveriesQuery = z
  .object({
    limit: queryNumber(1, 100, true).default(10),
    starting_after: z
      .string()
      .min(1)
      .max(80)
      .optional()
      .openapi({ description: 'A delivery id from the previous page: the next page starts after it.' }),
    type: EventTypeName.optional(),
    status: z.enum(DELIVERY_STATUSES).optional(),
    order_id: z.string().min(1).max(80).optional(),
    event_id: z.string().min(1).max(80).optional(),
  })
  .strict();

export const DeliveryPagination = z.object({
  limit: z.int(),
  has_more: z.boolean(),
  next_starting_after: z
    .string()
    .nullable()
    .openapi({ description: 'Pass as starting_after for the next page; null on the last page.' }),
});

export const DeliveryIdParams = z.object({ delivery_id: z.string().min(1).max(80) });

export const DeletedEndpointSchema = WebhookEndpointSchema.omit({ secret: true })
  .extend({
    deleted: z.literal(true),
    failed_deliveries: z.int().openapi({
      description:
        'Deliveries that were still pending or retrying and ended as `failed` (those with an attempt out are left to it).',
    }),
  })
  .openapi('DeletedWebhookEndpoint');

// ---- events API ------------------------------------------------------------------------------

const Instant = z.iso
  .datetime({ offset: true })
  .transform((v) => new Date(v).toISOString())
  .openapi({ format: 'date-time' });

const EventDelivery = z
  .object({
    id: z.string().openapi({ description: 'The webhook delivery (GET /v1/webhooks/deliveries/{delivery_id}).' }),
    status: z.enum(DELIVERY_STATUSES),
    success: z
      .boolean()
      .nullable()
      .openapi({ description: 'Whether the latest attempt (scheduled or redelivery) succeeded; null before any.' }),
  })
  .nullable()
  .openapi({
    description:
      'The event as a webhook: null when it was not sent (no endpoint was registered, or `enabled_events` left it out).',
  });

const ENVELOPES = webhookEnvelopeSchemas(OrderSchema);

/** The webhook body, exactly as sent (`id`, `object`, `type`, `created`, `environment`, `data`), and its delivery. */
export const EventSchema = z
  .discriminatedUnion(
    'type',
    EVENT_TYPES.map((t) => ENVELOPES[t].extend({ delivery: EventDelivery })) as unknown as [
      z.ZodObject,
      ...z.ZodObject[],
    ],
  )
  .openapi('Event');

export const ListEventsQuery = z
  .object({
    limit: queryNumber(1, 100, true).default(10),
    starting_after: z
      .string()
      .min(1)
      .max(80)
      .optional()
      .openapi({ description: 'An event id from the previous page: the next page starts after it.' }),
    type: EventTypeName.optional(),
    order_id: z.string().min(1).max(80).optional(),
    created_after: Instant.optional().openapi({ description: 'Only events created strictly after this time.' }),
    created_before: Instant.optional().openapi({ description: 'Only events created strictly before this time.' }),
    delivery_success: z
      .enum(['true', 'false'])
      .optional()
      .transform((v) => (v === undefined ? undefined : v === 'true'))
      .openapi({
        type: 'string',
        enum: ['true', 'false'],
        description:
          '`false`: events whose latest delivery attempt failed (or whose delivery ended unattempted when the endpoint was deleted); ' +
          '`true`: whose latest attempt succeeded. Events never sent match neither.',
      }),
  })
  .strict();

export const EventIdParams = z.object({ event_id: z.string().min(1).max(80) });

export const RecoverBody = z
  .object({
    since: Instant.openapi({
      description: 'Redeliver events created at or after this time (within the last 30 days, not in the future).',
      example: '2026-11-20T00:00:00.000Z',
    }),
  })
  .strict()
  .openapi('RecoverWebhooksRequest');

export const RecoverySchema = z
  .object({
    object: z.literal('webhook_recovery'),
    since: IsoTimestamp,
    queued: z.int().openapi({
      description: 'How many events are being redelivered (not counting those a recovery still running has queued).',
    }),
  })
  .openapi('WebhookRecovery');

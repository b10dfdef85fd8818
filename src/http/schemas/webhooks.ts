import { z } from '../openapi/zod.js';
import { IsoTimestamp, queryNumber } from './common.js';
import { EVENT_TYPES } from '../../domain/webhook/event-types.js';

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
        description: 'Event types to send; omitted means all (including types added later). Unknown names: 400.',
      }),
  })
  .strict()
  .openapi('RegisterWebhookEndpointRequest');

export const WebhookEndpointSchema = z
  .object({
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    events: z.array(EventTypeName).nullable().openapi({ description: 'The subscribed event types; null means all.' }),
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

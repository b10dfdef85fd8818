import { z } from '../openapi/zod.js';
import { IsoTimestamp, cursorParam, queryNumber } from './common.js';
import { OrderSchema } from './order.js';
import { EVENT_TYPES } from '../../domain/webhook/event-types.js';
import { webhookEnvelopeSchemas } from '../../domain/webhook/envelope.js';
import { PRINTABLE_RULE, PRINTABLE_TEXT } from '../../shared/unicode.js';

const EventTypeName = z.enum(EVENT_TYPES);
/**
 * An event type in a subscription list: checked by the service (unknown names: 400 naming them,
 * endpoints.ts), so the schema takes any name and the document gives the enum.
 */
const EventTypeItem = z
  .string()
  .min(1)
  .max(64)
  .openapi({ enum: [...EVENT_TYPES] });

/** `evt_` + 32 hex digits: every event id (src/domain/webhook/envelope.ts). */
export const EVENT_ID_PATTERN = '^evt_[0-9a-f]{32}$';
/** `whd_` + 32 hex digits: every delivery id (src/domain/webhook/delivery-events.ts). */
export const DELIVERY_ID_PATTERN = '^whd_[0-9a-f]{32}$';

/**
 * An instant in a query or body: RFC 3339 with `T`, seconds, an optional fraction and `Z` or an
 * offset (what zod's iso datetime accepts; lower-case `t`/`z`, leap seconds and `+24:00` are not),
 * answered as UTC. The pattern is the check's own regex, `\d` written `[0-9]`.
 */
export const INSTANT_PATTERN = z.regexes.datetime({ offset: true }).source.replace(/\\d/g, '[0-9]');
/**
 * The first and last milliseconds written with a four-digit year. An offset can take a valid time
 * just outside them (`9999-12-31T23:59:59-23:59` is in year 10000 in UTC), whose ISO form (`+010000-…`)
 * would compare wrongly as text with stored times, which all lie between them: held at the edge, it
 * compares as it should.
 */
const FIRST_MS = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_MS = Date.parse('9999-12-31T23:59:59.999Z');
const instant = (toMillisecond: (v: string) => number) =>
  z.iso
    .datetime({ offset: true })
    .transform((v) => new Date(Math.min(Math.max(toMillisecond(v), FIRST_MS), LAST_MS)).toISOString())
    .openapi({ format: 'date-time', pattern: INSTANT_PATTERN });
export const Instant = instant(Date.parse);

/**
 * The same, for a bound that a time taken to the millisecond (every stored time) must reach or
 * stay under: an instant between two milliseconds is raised to the next, where `Instant` drops the
 * digits past the third. "Before 10.1231" then keeps a time of 10.123, and "at or after 10.1231"
 * leaves it out.
 */
export const InstantRoundedUp = instant((v) => Date.parse(v) + (/\.\d{3}\d*[1-9]/.test(v) ? 1 : 0));

/** The cross-field rule of created_after and created_before (JSON Schema cannot say it), for descriptions. */
export const TIME_RANGE_NOTE =
  ' `created_after` and `created_before` are exclusive bounds: with `created_after` at or after `created_before` the page is empty.';
const DELIVERY_STATUSES = ['pending', 'succeeded', 'retrying', 'failed'] as const;

const PORT =
  '(?:443|102[4-9]|10[3-9][0-9]|1[1-9][0-9]{2}|[2-9][0-9]{3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';
/** After `x`: anything but the `n-` that would start an IDNA `xn--` label. */
const AFTER_X = '(?:[A-MO-Za-mo-z0-9-][A-Za-z0-9-]*|[Nn](?:[A-Za-z0-9][A-Za-z0-9-]*|-(?:[A-Za-z0-9][A-Za-z0-9-]*)?)?)?';
/** A label of letters, digits and hyphens that does not start with `xn--`. */
const LABEL = `(?:[A-WYZa-wyz0-9-][A-Za-z0-9-]*|[Xx]${AFTER_X})`;
/** The last label starts with a letter, so the parser never takes the host for an IPv4 number. */
const LAST_LABEL = `(?:[A-WYZa-wyz][A-Za-z0-9-]*|[Xx]${AFTER_X})`;
/**
 * The webhook URLs the service reads as well-formed, for the OpenAPI document (the service parses
 * with WHATWG URL, ../../webhooks/ssrf-guard.ts): https, a host name of letters, digits and
 * hyphens, an allowed port, then printable ASCII. Every URL it matches passes the rules on the
 * text (test/properties/webhook-url-pattern.test.ts); what its host resolves to is the 422
 * url_not_allowed. A public IP address or an internationalised host name (Unicode, or `xn--`
 * labels, whose punycode the parser checks), which the service also takes, it leaves out.
 */
export const WEBHOOK_URL_PATTERN = `^https://(?:${LABEL}\\.)*${LAST_LABEL}(?::${PORT})?(?:[/?#][!-~]*)?$`;

export const RegisterEndpointBody = z
  .object({
    url: z
      .string()
      .trim()
      // Stored and shown as sent (the console, the delivery log): once trimmed, no character that
      // breaks a line, reorders what follows on display or hides text, as any text the service echoes.
      .regex(PRINTABLE_TEXT, PRINTABLE_RULE)
      .min(1)
      .max(2048)
      .openapi({
        description:
          'Spaces around it are dropped. https only, no user name or password; port 443 (the default) or 1024-65535; a host name (in its ASCII, ' +
          'xn--, form). Every address the host resolves to must be public: a host that does not resolve, or resolves ' +
          'to a private, loopback or link-local address, is a 422 url_not_allowed.',
        pattern: WEBHOOK_URL_PATTERN,
        example: 'https://hooks.example.com/orders',
      }),
    events: z
      .array(EventTypeItem)
      .min(1)
      .max(EVENT_TYPES.length * 2)
      .nullable()
      .optional()
      .openapi({
        description:
          'The same list as `enabled_events` (its earlier name; give either, or both with the same types: both with different types is a 422 conflicting_parameters). ' +
          'Omitted or null means all (including types added later). Unknown names: 400.',
      }),
    enabled_events: z
      .array(EventTypeItem)
      .min(1)
      .max(EVENT_TYPES.length * 2)
      .nullable()
      .optional()
      .openapi({
        description:
          'Event types to send; omitted or null (as GET answers for all) means all, including types added later. `webhook.test` is always sent ' +
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
    starting_after: cursorParam({
      pattern: DELIVERY_ID_PATTERN,
      anId: 'a delivery',
      form: '`whd_` + 32 hex digits',
      yours: 'your deliveries of the last 30 days in this environment',
      notFound: 'delivery_not_found',
    }),
    type: EventTypeName.optional(),
    status: z.enum(DELIVERY_STATUSES).optional(),
    order_id: z.string().min(1).max(80).optional().openapi({
      description: 'Only deliveries of this order (an order id, `sbx_…` or `ord_…`); any other value matches none.',
    }),
    event_id: z.string().min(1).max(80).optional().openapi({
      description: 'Only the delivery of this event (an event id, `evt_…`); any other value matches none.',
    }),
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

export const DeliveryIdParams = z.object({
  delivery_id: z.string().min(1).max(80).openapi({
    pattern: DELIVERY_ID_PATTERN,
    description: 'A delivery id (`whd_` + 32 hex digits); another id: 404 (over 80 characters: 400).',
  }),
});

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

const EventDelivery = z
  .object({
    id: z.string().openapi({ description: 'The webhook delivery (GET /v1/webhooks/deliveries/{delivery_id}).' }),
    status: z.enum(DELIVERY_STATUSES),
    success: z.boolean().nullable().openapi({
      description:
        'Whether the latest attempt (scheduled or redelivery) succeeded; null before any, false for a delivery that ended before any (its endpoint deleted).',
    }),
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
    starting_after: cursorParam({
      pattern: EVENT_ID_PATTERN,
      anId: 'an event',
      form: '`evt_` + 32 hex digits',
      yours: 'your events of the last 30 days in this environment',
      notFound: 'event_not_found',
    }),
    type: EventTypeName.optional(),
    order_id: z.string().min(1).max(80).optional().openapi({
      description: 'Only events of this order (an order id, `sbx_…` or `ord_…`); any other value matches none.',
    }),
    created_after: Instant.optional().openapi({ description: 'Only events created strictly after this time.' }),
    created_before: InstantRoundedUp.optional().openapi({
      description: 'Only events created strictly before this time.',
    }),
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

export const EventIdParams = z.object({
  event_id: z.string().min(1).max(80).openapi({
    pattern: EVENT_ID_PATTERN,
    description: 'An event id (`evt_` + 32 hex digits); another id: 404 (over 80 characters: 400).',
  }),
});

export const RecoverBody = z
  .object({
    since: InstantRoundedUp.openapi({
      description:
        'Redeliver events created at or after this time: within the last 30 days and not in the future, otherwise ' +
        '422 time_out_of_range "since: must be within the last 30 days (not before …) and not in the future." (a rule ' +
        'on the time of the request, which the schema cannot state).',
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

import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import type { Principal } from '../../application/key-resolver.js';
import type { DeliveryState } from '../../domain/webhook/delivery-state.js';
import type { WebhookDeliveries } from '../../webhooks/deliveries.js';
import type { EndpointOwner, WebhookEndpoints } from '../../webhooks/endpoints.js';
import {
  DeletedEndpointSchema,
  DeliveryIdParams,
  DeliveryPagination,
  ListDeliveriesQuery,
  RecoverBody,
  RecoverySchema,
  RegisterEndpointBody,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
} from '../schemas/webhooks.js';

const owner = (p: Principal): EndpointOwner => ({ partnerId: p.partner.id, environment: p.key.environment });

/** The delivery record partners see (internal ordering fields left out). */
export function toPublicDelivery(d: DeliveryState) {
  return {
    id: d.id,
    object: 'webhook_delivery' as const,
    event_id: d.event_id,
    event_type: d.event_type,
    order_id: d.order_id,
    url: d.url,
    status: d.status,
    attempt_count: d.attempt_count,
    next_attempt_at: d.next_attempt_at,
    created_at: d.created_at,
    updated_at: d.updated_at,
    attempts: d.attempts,
    failure_reason: d.status === 'failed' ? (d.failure_reason ?? null) : null,
  };
}

export function webhookRoutes(deps: { endpoints: WebhookEndpoints; deliveries: WebhookDeliveries }) {
  const tags = ['Webhooks'];
  return [
    defineRoute({
      method: 'put',
      path: '/v1/webhooks/endpoint',
      operationId: 'putWebhookEndpoint',
      summary: 'Register or replace the webhook endpoint of this environment',
      description:
        'The first registration answers 201 with the signing secret, shown once; later calls replace url and events (200, no secret). ' +
        'Checked in this order. 400 validation_error, where the request does not match the schema: a name that is not ' +
        'an event type (`enabled_events: unknown event type "x".`, naming each); a `url` that is not an absolute https URL, ' +
        'has a user name or password, or a port other than 443 or 1024-65535 ("webhook URL …"). Then the rules the schema ' +
        'cannot state, 422: `events` and `enabled_events` both given with different types, conflicting_parameters ' +
        '("enabled_events and events name the same list: give one of them (or both with the same types)."); a host that ' +
        'does not resolve or resolves to an address that is not public, url_not_allowed ("webhook URL host …").',
      tags,
      scope: 'webhooks:manage',
      request: { body: RegisterEndpointBody },
      responses: {
        201: { description: 'Registered; `secret` is shown this once.', data: WebhookEndpointSchema },
        200: { description: 'Updated.', data: WebhookEndpointSchema },
      },
      // concurrent_modification: another registration or deletion won the same revision; retry.
      errors: [409, 422],
      handler: async ({ principal, body }) => {
        const { created, endpoint } = await deps.endpoints.register(owner(principal), body);
        return { status: created ? 201 : 200, data: endpoint };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/endpoint',
      operationId: 'getWebhookEndpoint',
      summary: 'The webhook endpoint registered for this environment (never its secret)',
      tags,
      scope: 'webhooks:manage',
      responses: { 200: { description: 'The registration.', data: WebhookEndpointSchema } },
      errors: [404],
      handler: async ({ principal }) => ({ data: await deps.endpoints.view(owner(principal)) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhooks/endpoint',
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete the webhook endpoint: no more deliveries to it',
      description:
        'Deliveries still pending or retrying end as `failed` (failure_reason says why); one with an attempt ' +
        'already out is left to it: a success stands, a failure ends it as `failed`. Events go on being created and ' +
        'listed by GET /v1/events. A later PUT registers anew, with a new secret.',
      tags,
      scope: 'webhooks:manage',
      responses: { 200: { description: 'Deleted.', data: DeletedEndpointSchema } },
      errors: [404, 409],
      handler: async ({ principal }) => {
        const removed = await deps.endpoints.remove(owner(principal));
        const failed = await deps.deliveries.endUnfinished(owner(principal));
        return { data: { ...removed, deleted: true as const, failed_deliveries: failed } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/recover',
      operationId: 'recoverWebhooks',
      summary: 'Redeliver every event whose delivery failed since a time',
      description:
        'Every event created at or after `since` whose latest delivery attempt failed (GET /v1/events?delivery_success=false) ' +
        "is sent again, events of one order in the order they happened, within the endpoint's concurrency limit. " +
        'Answers 202 with how many were queued; each redelivery is an attempt in the delivery log.',
      tags,
      scope: 'webhooks:manage',
      request: { body: RecoverBody },
      responses: { 202: { description: 'Queued.', data: RecoverySchema } },
      errors: [409, 422],
      handler: async ({ principal, body, requestId }) => {
        const { queued } = await deps.deliveries.recover(owner(principal), body.since, requestId);
        return { status: 202, data: { object: 'webhook_recovery' as const, since: body.since, queued } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/endpoint/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: 'Replace the signing secret; the old one keeps signing for 24 hours',
      tags,
      scope: 'webhooks:manage',
      request: { body: z.object({}).strict(), bodyOptional: true },
      responses: { 200: { description: 'The new secret, shown this once.', data: WebhookEndpointSchema } },
      errors: [409],
      handler: async ({ principal }) => ({ data: await deps.endpoints.rotateSecret(owner(principal)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/test',
      operationId: 'sendTestWebhook',
      summary: 'Send a webhook.test event to the registered endpoint',
      description:
        'Answers 202 with the new delivery; it is sent at once like any event. 409 webhook_endpoint_not_configured without an endpoint.',
      tags,
      scope: 'webhooks:manage',
      request: { body: z.object({}).strict(), bodyOptional: true },
      responses: { 202: { description: 'Scheduled.', data: WebhookDeliverySchema } },
      errors: [409],
      handler: async ({ principal, requestId }) => ({
        status: 202,
        data: toPublicDelivery(await deps.deliveries.sendTest(owner(principal), requestId)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'Webhook deliveries of the last 30 days, newest first',
      tags,
      scope: 'webhooks:read',
      request: { query: ListDeliveriesQuery },
      errors: [404],
      responses: {
        200: {
          description: 'A page of deliveries.',
          data: z.array(WebhookDeliverySchema),
          pagination: DeliveryPagination,
        },
      },
      handler: async ({ principal, query }) => {
        const { deliveries, has_more } = await deps.deliveries.list(owner(principal), query);
        return {
          data: deliveries.map(toPublicDelivery),
          pagination: {
            limit: query.limit,
            has_more,
            next_starting_after: has_more ? deliveries[deliveries.length - 1]!.id : null,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/deliveries/:delivery_id',
      operationId: 'getWebhookDelivery',
      summary: 'One webhook delivery with its attempts',
      tags,
      scope: 'webhooks:read',
      request: { params: DeliveryIdParams },
      responses: { 200: { description: 'The delivery.', data: WebhookDeliverySchema } },
      errors: [404],
      handler: async ({ principal, params }) => ({
        data: toPublicDelivery(await deps.deliveries.get(owner(principal), params.delivery_id)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/deliveries/:delivery_id/redeliver',
      operationId: 'redeliverWebhook',
      summary: 'Send a delivery again now (same event id and body, new signature)',
      description:
        'Answers once the attempt has ended, with the delivery and that attempt last in `attempts`. ' +
        'Each redelivery answered 200 is one attempt, recorded; 409 delivery_in_progress while another attempt of the delivery is in flight, 409 webhook_endpoint_not_configured without an endpoint.',
      tags,
      scope: 'webhooks:read',
      request: { params: DeliveryIdParams, body: z.object({}).strict(), bodyOptional: true },
      responses: { 200: { description: 'The delivery after the attempt.', data: WebhookDeliverySchema } },
      errors: [404, 409],
      handler: async ({ principal, requestId, params }) => ({
        data: toPublicDelivery(await deps.deliveries.redeliver(owner(principal), params.delivery_id, requestId)),
      }),
    }),
  ];
}

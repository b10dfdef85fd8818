import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import type { Principal } from '../../application/key-resolver.js';
import type { ShownEvent, WebhookEvents } from '../../webhooks/events.js';
import {
  DeliveryPagination,
  EventIdParams,
  EventSchema,
  ListEventsQuery,
  TIME_RANGE_NOTE,
} from '../schemas/webhooks.js';
import { extend } from '../../shared/objects.js';

const owner = (p: Principal) => ({ partnerId: p.partner.id, environment: p.key.environment });

/** The webhook body exactly as sent, and what its delivery did. */
export function toPublicEvent(e: ShownEvent) {
  return extend(e.event, {
    delivery: e.delivery_id
      ? { id: e.delivery_id, status: e.delivery_status ?? 'pending', success: e.delivery_success }
      : null,
  });
}

export function eventRoutes(deps: { events: WebhookEvents }) {
  const tags = ['Events'];
  return [
    defineRoute({
      method: 'get',
      path: '/v1/events',
      operationId: 'listEvents',
      summary: 'Events of the last 30 days, newest first, whether or not they were sent as webhooks',
      description:
        'The same `id`, `type`, `created` and `data` as the webhook body. An event is listed as soon as the change that ' +
        'causes it, also when no endpoint is registered, so polling this list is an alternative to webhooks.' +
        TIME_RANGE_NOTE,
      tags,
      scope: 'webhooks:read',
      request: { query: ListEventsQuery },
      errors: [404],
      responses: {
        200: { description: 'A page of events.', data: z.array(EventSchema), pagination: DeliveryPagination },
      },
      handler: async ({ principal, query }) => {
        const { events, has_more } = await deps.events.list(owner(principal), query);
        return {
          data: events.map(toPublicEvent),
          pagination: {
            limit: query.limit,
            has_more,
            next_starting_after: has_more ? events[events.length - 1]!.event_id : null,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/events/:event_id',
      operationId: 'getEvent',
      summary: 'One event',
      tags,
      scope: 'webhooks:read',
      request: { params: EventIdParams },
      responses: { 200: { description: 'The event.', data: EventSchema } },
      errors: [404],
      handler: async ({ principal, params }) => ({
        data: toPublicEvent(await deps.events.get(owner(principal), params.event_id)),
      }),
    }),
  ];
}

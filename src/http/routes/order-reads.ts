import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import type { OrderQueries } from '../../application/orders/order-queries.js';
import { ORDER_STATUSES } from '../../domain/order/machine.js';
import { toPublicOrder } from '../../domain/order/public-order.js';
import { ORDER_ID_PATTERN, OrderIdParams, OrderSchema, ReferenceFilter } from '../schemas/order.js';
import { IsoTimestamp, cursorParam, queryNumber } from '../schemas/common.js';
import { Instant, InstantRoundedUp, TIME_RANGE_NOTE } from '../schemas/webhooks.js';
import { partnerContext } from './orders.js';

const ListOrdersQuery = z
  .object({
    limit: queryNumber(1, 100, true).default(10),
    starting_after: cursorParam({
      pattern: ORDER_ID_PATTERN,
      anId: 'an order',
      form: '`sbx_` or `ord_` + 22 letters and digits',
      yours: 'your orders in this environment',
      notFound: 'order_not_found',
    }),
    reference: ReferenceFilter.optional().openapi({
      description:
        'Your own reference: find an order after an unconfirmed creation. Matched exactly once surrounding whitespace is removed, as it is from the reference an order is placed with; a value no order was placed with matches none.',
    }),
    status: z.enum(ORDER_STATUSES).optional(),
    created_after: Instant.optional().openapi({ description: 'Only orders created strictly after this time.' }),
    created_before: InstantRoundedUp.optional().openapi({
      description: 'Only orders created strictly before this time.',
    }),
  })
  .strict();

const ListPagination = z
  .object({
    limit: z.int(),
    has_more: z.boolean(),
    next_starting_after: z
      .string()
      .nullable()
      .openapi({ description: 'Pass as starting_after for the next page; null on the last page.' }),
  })
  .openapi('CursorPagination');

const TrackingSchema = z
  .object({
    order_id: z.string(),
    status: z.enum(ORDER_STATUSES),
    fulfilment: z.enum(['delivery', 'pickup']),
    timeline: z.array(z.object({ status: z.enum(ORDER_STATUSES), at: IsoTimestamp })),
    rider: z
      .object({
        name: z.string(),
        phone: z.string(),
        vehicle: z.string(),
        location: z
          .object({
            lat: z.number(),
            lng: z.number(),
            updated_at: IsoTimestamp,
            stale: z
              .boolean()
              .openapi({ description: 'true when the position is more than a minute old: show it as last known.' }),
          })
          .nullable()
          .openapi({ description: 'null while the rider has reported no position yet.' }),
      })
      .nullable()
      .openapi({ description: 'null until a rider is assigned and the order is being prepared or delivered.' }),
  })
  .openapi('Tracking');

export function orderReadRoutes(deps: { queries: OrderQueries }) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/orders',
      operationId: 'listOrders',
      summary: "The partner's orders in this environment, newest first",
      description:
        'Cursor pagination: pass the last id you got as starting_after. Includes every write you made before the request.' +
        TIME_RANGE_NOTE,
      tags: ['Orders'],
      scope: 'orders:read',
      request: { query: ListOrdersQuery },
      errors: [404],
      responses: { 200: { description: 'A page of orders.', data: z.array(OrderSchema), pagination: ListPagination } },
      handler: async ({ principal, requestId, query }) => {
        const { orders, has_more } = await deps.queries.list(partnerContext(principal, requestId), query);
        return {
          data: orders.map(toPublicOrder),
          pagination: {
            limit: query.limit,
            has_more,
            next_starting_after: has_more ? orders[orders.length - 1]!.order_id : null,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/orders/:order_id/tracking',
      operationId: 'getOrderTracking',
      summary: 'Status timeline and rider of an order',
      description: 'Poll no more often than every 10 to 15 seconds.',
      tags: ['Orders'],
      scope: 'orders:read',
      request: { params: OrderIdParams },
      responses: { 200: { description: 'Tracking.', data: TrackingSchema } },
      errors: [404],
      handler: async ({ principal, requestId, params }) => ({
        data: await deps.queries.tracking(partnerContext(principal, requestId), params.order_id),
      }),
    }),
  ];
}

import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import { OPS_ACTIONS, runOperation } from '../../application/orders/operations.js';
import type { OrderService } from '../../application/orders/order-service.js';
import type { RiderLocations } from '../../application/orders/rider-locations.js';
import { toPublicOrder } from '../../domain/order/public-order.js';
import { OrderSchema } from '../schemas/order.js';

const OpsBody = z
  .object({
    reason: z.string().max(200).optional(),
    name: z.string().min(1).max(100).optional(),
    phone: z.string().min(4).max(32).optional(),
    vehicle: z.string().min(1).max(40).optional(),
    amount: z.number().positive().optional(),
    lat: z.number().min(-90).max(90).optional(),
    lng: z.number().min(-180).max(180).optional(),
  })
  .strict()
  .openapi('OpsActionRequest');

/** Restaurant, rider and support actions on orders, for operators (ADMIN_TOKEN). */
export function internalRoutes(deps: { orders: OrderService; riders: RiderLocations }) {
  return [
    defineRoute({
      method: 'post',
      path: '/internal/orders/:order_id/:action',
      operationId: 'operateOrder',
      summary: 'Run a restaurant / rider / support action on an order',
      description: `Actions: ${OPS_ACTIONS.join(', ')}. Each goes through the order machine; refused transitions answer 409.`,
      tags: ['Operations'],
      auth: 'admin',
      request: {
        params: z.object({ order_id: z.string().min(1).max(80), action: z.enum(OPS_ACTIONS) }),
        body: OpsBody,
        bodyOptional: true,
      },
      responses: { 200: { description: 'The order after the action.', data: OrderSchema } },
      errors: [404, 409, 422],
      handler: async ({ params, body, requestId, clientRequestId }) => {
        const order = await runOperation(deps, params.order_id, params.action, body ?? {}, {
          requestId,
          clientRequestId,
        });
        return { data: toPublicOrder(order) };
      },
    }),
  ];
}

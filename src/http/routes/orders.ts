import { z } from '../openapi/zod.js';
import { defineRoute, type RouteResult } from '../route.js';
import type { OrderService, PartnerContext } from '../../application/orders/order-service.js';
import type { Sandbox } from '../../application/orders/sandbox.js';
import type { Principal } from '../../application/key-resolver.js';
import { toPublicOrder } from '../../domain/order/public-order.js';
import { receivedBody } from '../middleware/body.js';
import {
  CancelOrderBody,
  IdempotencyHeaders,
  OrderIdParams,
  OrderSchema,
  PaymentLinkSchema,
  PlaceOrderBody,
  SimulateBody,
} from '../schemas/order.js';
import { toMajor } from '../../domain/money.js';
import type { OrderView } from '../../domain/order/state.js';

export function partnerContext(principal: Principal, requestId: string, clientRequestId?: string): PartnerContext {
  return {
    actor: 'partner',
    partnerId: principal.partner.id,
    environment: principal.key.environment,
    requestId,
    clientRequestId,
  };
}

const replayedHeader = {
  'Idempotent-Replayed': {
    description: '`true` when this answer replays an earlier request with the same key.',
    schema: z.literal('true'),
    required: true,
  },
};

const replayed = (order: OrderView): RouteResult => ({
  status: 200,
  data: toPublicOrder(order),
  headers: { 'Idempotent-Replayed': 'true' },
});

export function orderRoutes(deps: { orders: OrderService; sandbox: Sandbox }) {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/orders',
      operationId: 'createOrder',
      summary: 'Place an order (idempotent)',
      description:
        'The service prices the order from the catalog. Same Idempotency-Key and body: 200 with the order as it is now and `Idempotent-Replayed: true`; same key, different body: 409 idempotency_conflict. ' +
        "Rules that depend on the catalog, so the schema cannot state them, are 422: options that do not fit the item's modifier groups (invalid_modifiers, naming items[i].modifier_ids), " +
        "a tip with more decimals or above the maximum of the store's currency (invalid_amount, naming tip), and item_unavailable, store_closed, out_of_zone, below_minimum_order, invalid_promo_code, quote_mismatch.",
      tags: ['Orders'],
      scope: 'orders:write',
      request: { body: PlaceOrderBody, headers: IdempotencyHeaders },
      responses: {
        201: { description: 'Placed.', data: OrderSchema },
        200: { description: 'Replay of an earlier request with this key.', data: OrderSchema, headers: replayedHeader },
      },
      errors: [404, 409, 422],
      // A retry of a body already validated and matched to this key (the same bytes) is answered
      // from the order as it is now, without validating the body again.
      beforeBody: async ({ principal, requestId, clientRequestId, headers, res }) => {
        const received = receivedBody(res);
        if (received === undefined) return undefined;
        const order = await deps.orders.replay(
          partnerContext(principal, requestId, clientRequestId),
          headers['idempotency-key']!,
          received,
        );
        return order ? replayed(order) : undefined;
      },
      handler: async ({ principal, requestId, clientRequestId, body, headers, res }) => {
        const ctx = partnerContext(principal, requestId, clientRequestId);
        const result = await deps.orders.place(ctx, headers['idempotency-key']!, body);
        const received = receivedBody(res);
        if (received !== undefined) deps.orders.remember(ctx, headers['idempotency-key']!, received);
        return result.created ? { status: 201, data: toPublicOrder(result.order) } : replayed(result.order);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/orders/:order_id',
      operationId: 'getOrder',
      summary: 'An order, always current (rebuilt from its event stream)',
      tags: ['Orders'],
      scope: 'orders:read',
      request: { params: OrderIdParams },
      responses: { 200: { description: 'The order.', data: OrderSchema } },
      errors: [404],
      handler: async ({ principal, requestId, clientRequestId, params }) => ({
        data: toPublicOrder(
          await deps.orders.get(partnerContext(principal, requestId, clientRequestId), params.order_id),
        ),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/orders/:order_id/cancel',
      operationId: 'cancelOrder',
      summary: 'Cancel an order while it is placed or confirmed',
      description:
        'Answers 200 with the cancelled order. Any other status, or a repeat, gives 409 order_not_cancellable.',
      tags: ['Orders'],
      scope: 'orders:write',
      request: { params: OrderIdParams, body: CancelOrderBody, bodyOptional: true },
      responses: { 200: { description: 'The cancelled order.', data: OrderSchema } },
      errors: [404, 409],
      handler: async ({ principal, requestId, clientRequestId, params, body }) => {
        const result = await deps.orders.cancel(
          partnerContext(principal, requestId, clientRequestId),
          params.order_id,
          body?.reason ?? null,
        );
        return { data: toPublicOrder(result.order) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/orders/:order_id/payment',
      operationId: 'createPaymentLink',
      summary: 'A fresh payment link for an unpaid card order',
      description:
        'Each call returns a new link (valid 30 minutes). Cash or already-paid orders: 409 payment_not_required. Live orders: 422 payment_provider_unavailable (the built-in checkout takes sandbox payments only).',
      tags: ['Orders'],
      scope: 'orders:write',
      request: { params: OrderIdParams, body: z.object({}).strict(), bodyOptional: true },
      responses: { 201: { description: 'A new payment link.', data: PaymentLinkSchema } },
      errors: [404, 409, 422],
      handler: async ({ principal, requestId, clientRequestId, params }) => {
        const { order, link } = await deps.orders.paymentLink(
          partnerContext(principal, requestId, clientRequestId),
          params.order_id,
        );
        return {
          status: 201,
          data: {
            object: 'payment_link' as const,
            id: link.id,
            order_id: order.order_id,
            url: link.url,
            amount: toMajor(order.pricing.total, order.currency),
            currency: order.currency,
            expires_at: link.expires_at,
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/sandbox/orders/:order_id/advance',
      operationId: 'advanceSandboxOrder',
      summary: 'Move a sandbox order to the next status of its path',
      description:
        'Sandbox keys only (a live key gets 403 sandbox_only). Delivery path: placed → confirmed → preparing → ready → out_for_delivery → delivered; pickup: … → ready → completed. 409 at the end of the path, from cancelled, or for an unpaid card order (payment_pending: pay it with the simulate action payment_succeeded). A rider under way moves one step toward the customer on each advance (see tracking).',
      tags: ['Sandbox'],
      scope: 'sandbox:write',
      sandboxOnly: true,
      request: { params: OrderIdParams, body: z.object({}).strict(), bodyOptional: true },
      responses: { 200: { description: 'The advanced order.', data: OrderSchema } },
      errors: [404, 409],
      handler: async ({ principal, requestId, clientRequestId, params }) => ({
        data: toPublicOrder(
          await deps.sandbox.advance(partnerContext(principal, requestId, clientRequestId), params.order_id),
        ),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/sandbox/orders/:order_id/simulate',
      operationId: 'simulateSandboxOrder',
      summary: 'Make the restaurant, rider, support or payment act on a sandbox order',
      description:
        "Sandbox keys only (a live key gets 403 sandbox_only). Each action runs the same operation as the real actor, with the same events and webhooks: `payment_succeeded` and `payment_failed` (card orders), `restaurant_cancel` (with a `reason`), `refund` (`amount` in major units, partial or full; the rest when left out), `rider_location` (the rider moves one step of five along the route from the store to the customer; the same step always gives the same point). A transition the order's state does not allow answers 409 with the same code and message as the real one.",
      tags: ['Sandbox'],
      scope: 'sandbox:write',
      sandboxOnly: true,
      request: { params: OrderIdParams, body: SimulateBody },
      responses: { 200: { description: 'The order after the action.', data: OrderSchema } },
      errors: [404, 409, 422],
      handler: async ({ principal, requestId, clientRequestId, params, body }) => ({
        data: toPublicOrder(
          await deps.sandbox.simulate(partnerContext(principal, requestId, clientRequestId), params.order_id, body),
        ),
      }),
    }),
  ];
}

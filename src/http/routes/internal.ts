import { z } from '../openapi/zod.js';
import { defineRoute, type RouteSpec } from '../route.js';
import { parseOrThrow } from '../validation.js';
import {
  OPS_ACTIONS,
  OPS_TEXT_LIMITS,
  runOperation,
  type OpsAction,
  type OpsArgs,
} from '../../application/orders/operations.js';
import type { OrderService } from '../../application/orders/order-service.js';
import type { RiderLocations } from '../../application/orders/rider-locations.js';
import { toPublicOrder } from '../../domain/order/public-order.js';
import { OrderSchema } from '../schemas/order.js';
import { PRINTABLE_PATTERN, PRINTABLE_RULE, PRINTABLE_TEXT } from '../../shared/unicode.js';

// zod counts code points, as runOperation and the document's minLength/maxLength do; the character
// rule is the API's free-text one, as runOperation applies it.
const text = ({ min, max }: { min: number; max: number }) =>
  (min > 0 ? z.string().min(min) : z.string())
    .max(max)
    .regex(PRINTABLE_TEXT, PRINTABLE_RULE)
    // A flagged regex is written as `source/u` in the document, which nothing matches: the source.
    .openapi({ pattern: PRINTABLE_PATTERN });

/**
 * Every field an action body may carry, with the limits runOperation applies to every caller.
 * Every action's body accepts all of them (a field an action does not use is accepted and ignored,
 * as it always was); what differs per action is which fields it reads and which it requires.
 */
const FIELDS = {
  reason: text(OPS_TEXT_LIMITS.reason),
  name: text(OPS_TEXT_LIMITS.name),
  phone: text(OPS_TEXT_LIMITS.phone),
  vehicle: text(OPS_TEXT_LIMITS.vehicle),
  amount: z.number().positive(),
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
};
type Field = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as Field[];

interface ActionSpec {
  /** Who does it, as recorded in the event's metadata (runOperation's ACTOR). */
  actor: string;
  summary: string;
  description: string;
  /** The fields the action reads; `required` ones are refused when absent (runOperation's `required`). */
  uses: Partial<Record<Field, { required?: true; description: string }>>;
  /** Statuses besides 400 and 404 (unknown order; the API disabled). */
  errors: number[];
}

const REFUSED = '409 invalid_transition (with the reason) when the order is in another status.';

/** What each action does, reads and refuses: exactly runOperation (src/application/orders/operations.ts). */
export const OPS_ACTION_SPECS: Record<OpsAction, ActionSpec> = {
  accept: {
    actor: 'restaurant',
    summary: 'Accept an order',
    description: `The restaurant accepts a placed order: \`placed\` -> \`confirmed\` (OrderAccepted). 409 payment_pending while a card order is unpaid; ${REFUSED}`,
    uses: {},
    errors: [409],
  },
  start: {
    actor: 'restaurant',
    summary: 'Start preparing an order',
    description: `\`confirmed\` -> \`preparing\` (OrderPreparationStarted). ${REFUSED}`,
    uses: {},
    errors: [409],
  },
  ready: {
    actor: 'restaurant',
    summary: 'Mark an order ready',
    description: `\`preparing\` -> \`ready\` (OrderPacked). ${REFUSED}`,
    uses: {},
    errors: [409],
  },
  'assign-rider': {
    actor: 'support',
    summary: 'Assign a rider to a delivery order',
    description: `Assigns (or replaces) the rider of a delivery order that is \`confirmed\`, \`preparing\` or \`ready\` (RiderAssigned); the status does not change. 409 invalid_transition for a pickup order; ${REFUSED}`,
    uses: {
      name: { required: true, description: "The rider's name." },
      phone: { required: true, description: "The rider's phone number." },
      vehicle: { required: true, description: "The rider's vehicle, e.g. motorbike." },
    },
    errors: [409],
  },
  pickup: {
    actor: 'rider',
    summary: 'Pick up a delivery order',
    description: `\`ready\` -> \`out_for_delivery\` (OrderPickedUp), for a delivery order with a rider assigned. 409 invalid_transition for a pickup order or an order without a rider; ${REFUSED}`,
    uses: {},
    errors: [409],
  },
  deliver: {
    actor: 'rider',
    summary: 'Deliver an order',
    description: `\`out_for_delivery\` -> \`delivered\` (OrderDelivered); a cash order becomes paid. 409 invalid_transition for a pickup order; ${REFUSED}`,
    uses: {},
    errors: [409],
  },
  collect: {
    actor: 'restaurant',
    summary: 'Hand a pickup order to the customer',
    description: `\`ready\` -> \`completed\` (OrderCollected), for a pickup order; a cash order becomes paid. 409 invalid_transition for a delivery order; ${REFUSED}`,
    uses: {},
    errors: [409],
  },
  cancel: {
    actor: 'restaurant',
    summary: 'Cancel an order (restaurant)',
    description: `\`placed\`, \`confirmed\`, \`preparing\`, \`ready\` or \`out_for_delivery\` -> \`cancelled\` (OrderCancelled, by restaurant). ${REFUSED}`,
    uses: { reason: { description: 'Why; recorded as `cancellation.reason` (null when absent).' } },
    errors: [409],
  },
  refund: {
    actor: 'support',
    summary: 'Refund an order',
    description:
      'Refunds a `delivered`, `completed`, `cancelled` or `partially_refunded` order whose payment is `paid` or `partially_refunded` (OrderRefunded): ' +
      '`partially_refunded` until everything is refunded, then `refunded`. ' +
      "422 invalid_amount when `amount` has more decimals than the order's currency (KWD 3, AED 2), invalid_refund when it is more than what is left to refund; " +
      "409 invalid_transition when there is nothing to refund (the payment is not paid) or the order's status allows no refund.",
    uses: {
      amount: {
        description:
          "In major units of the order's currency (e.g. 1.25 KWD), at most what is left to refund and with at most the currency's decimals. Absent: everything not yet refunded.",
      },
    },
    errors: [409, 422],
  },
  'rider-location': {
    actor: 'rider',
    summary: "Record the rider's position",
    description: `Records a position of the assigned rider (RiderLocationUpdated, in the order's rider stream; partners see it in tracking). The order is answered unchanged. 409 invalid_transition when no rider is assigned or the order is not \`confirmed\`, \`preparing\`, \`ready\` or \`out_for_delivery\`.`,
    uses: {
      lat: { required: true, description: 'Latitude, WGS 84.' },
      lng: { required: true, description: 'Longitude, WGS 84.' },
    },
    errors: [409],
  },
  pay: {
    actor: 'system',
    summary: 'Record a card payment',
    description:
      "Records the successful payment of the order's total (PaymentSucceeded) for a card order that is `placed` and not paid yet; the payment becomes `paid`. " +
      '409 payment_not_required for a cash order; 409 invalid_transition when it is paid already or no longer placed.',
    uses: {},
    errors: [409],
  },
  'fail-payment': {
    actor: 'system',
    summary: 'Record a failed card payment',
    description:
      'Records a failed payment (PaymentFailed) for a card order that is `placed` and not paid yet; the payment becomes `failed`. ' +
      '409 payment_not_required for a cash order; 409 invalid_transition when it is paid already or no longer placed.',
    uses: { reason: { description: 'Why the payment failed; `declined` when absent.' } },
    errors: [409],
  },
};

const pascal = (action: string): string =>
  action.replace(/(^|-)([a-z])/g, (_m, _dash: string, c: string) => c.toUpperCase());

/** operationId of an action's route: `operateOrderAccept`, `operateOrderAssignRider`, ... */
export const opsOperationId = (action: OpsAction): string => `operateOrder${pascal(action)}`;

/** The body one action takes: every field (strict), the ones it reads described and the required ones required. */
function bodySchema(action: OpsAction): z.ZodType<OpsArgs> {
  const { uses } = OPS_ACTION_SPECS[action];
  const shape: Record<string, z.ZodType> = {};
  for (const name of FIELD_NAMES) {
    const use = uses[name];
    const field: z.ZodType = FIELDS[name];
    shape[name] = use?.required
      ? field.openapi({ description: `Required. ${use.description}` })
      : field
          .optional()
          .openapi({ description: use ? use.description : `Not used by ${action}: accepted and ignored.` });
  }
  const required = FIELD_NAMES.filter((name) => uses[name]?.required);
  return z
    .object(shape)
    .strict()
    .openapi(`Ops${pascal(action)}Request`, {
      description: required.length
        ? `The body of ${action}: ${required.join(', ')} required.`
        : `The body of ${action}, which may be omitted.`,
    });
}

const BODIES = Object.fromEntries(OPS_ACTIONS.map((a) => [a, bodySchema(a)])) as Record<OpsAction, z.ZodType<OpsArgs>>;
const takesNoRequiredField = (action: OpsAction): boolean =>
  !FIELD_NAMES.some((name) => OPS_ACTION_SPECS[action].uses[name]?.required);

/** Every action's fields, none required, for the route that catches a path no action route matched. */
const AnyActionBody = z
  .object({
    reason: FIELDS.reason.optional(),
    name: FIELDS.name.optional(),
    phone: FIELDS.phone.optional(),
    vehicle: FIELDS.vehicle.optional(),
    amount: FIELDS.amount.optional(),
    lat: FIELDS.lat.optional(),
    lng: FIELDS.lng.optional(),
  })
  .strict();

/** Restaurant, rider and support actions on orders, for operators (ADMIN_TOKEN): one route per action. */
export function internalRoutes(deps: { orders: OrderService; riders: RiderLocations }): RouteSpec[] {
  const operate =
    (action: OpsAction) =>
    async (ctx: {
      params: { order_id: string };
      body: OpsArgs | undefined;
      requestId: string;
      clientRequestId: string | undefined;
    }) => {
      const order = await runOperation(deps, ctx.params.order_id, action, ctx.body ?? {}, {
        requestId: ctx.requestId,
        clientRequestId: ctx.clientRequestId,
      });
      return { data: toPublicOrder(order) };
    };
  const orderId = z.string().min(1).max(80);

  const routes: RouteSpec[] = OPS_ACTIONS.map((action) => {
    const spec = OPS_ACTION_SPECS[action];
    return defineRoute({
      method: 'post',
      path: `/internal/orders/:order_id/${action}`,
      operationId: opsOperationId(action),
      summary: `${spec.summary} (${action}, as ${spec.actor})`,
      description: `${spec.description} Also \`npm run cli -- ops <order_id> ${action}\`.`,
      tags: ['Operations'],
      auth: 'admin',
      request: {
        params: z.object({ order_id: orderId }),
        body: BODIES[action],
        bodyOptional: takesNoRequiredField(action),
      },
      responses: {
        200: {
          description: action === 'rider-location' ? 'The order (unchanged).' : 'The order after the action.',
          data: OrderSchema,
        },
      },
      errors: [404, ...spec.errors],
      handler: operate(action),
    });
  });

  // Any other last segment: refused as it always was (400 validation_error naming path.action),
  // after the admin token. A known action reaches this route only spelled with percent-escapes
  // (`acc%65pt`), and then runs as that action, with that action's body rules.
  routes.push(
    defineRoute({
      method: 'post',
      path: '/internal/orders/:order_id/:action',
      operationId: 'operateOrderUnknownAction',
      summary: 'Any other action: 400 validation_error',
      tags: ['Operations'],
      auth: 'admin',
      undocumented: true,
      request: {
        params: z.object({ order_id: orderId, action: z.enum(OPS_ACTIONS) }),
        body: AnyActionBody,
        bodyOptional: true,
      },
      responses: { 200: { description: 'The order after the action.', data: OrderSchema } },
      errors: [404, 409, 422],
      handler: async ({ params, body, requestId, clientRequestId }) => {
        const args = body === undefined && takesNoRequiredField(params.action) ? undefined : (body ?? {});
        const parsed = args === undefined ? undefined : parseOrThrow(BODIES[params.action], args, 'body');
        return operate(params.action)({ params, body: parsed, requestId, clientRequestId });
      },
    }),
  );
  return routes;
}

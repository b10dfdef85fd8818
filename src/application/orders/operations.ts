import { ApiError } from '../../domain/errors.js';
import { fromMajor } from '../../domain/money.js';
import type { OrderCommand } from '../../domain/order/decide.js';
import type { OrderView } from '../../domain/order/state.js';
import type { CommandContext } from './context.js';
import type { OrderService } from './order-service.js';
import type { RiderLocations } from './rider-locations.js';
import { extend } from '../../shared/objects.js';
import { characterCount, PRINTABLE_RULE, PRINTABLE_TEXT } from '../../shared/unicode.js';

/** What restaurants, riders and support do to live orders; the same list backs /internal and `cli ops`. */
export const OPS_ACTIONS = [
  'accept',
  'start',
  'ready',
  'assign-rider',
  'pickup',
  'deliver',
  'collect',
  'cancel',
  'refund',
  'rider-location',
  'pay',
  'fail-payment',
] as const;
export type OpsAction = (typeof OPS_ACTIONS)[number];

export interface OpsArgs {
  reason?: string | undefined;
  name?: string | undefined;
  phone?: string | undefined;
  vehicle?: string | undefined;
  /** Major units of the order's currency. */
  amount?: number | string | undefined;
  lat?: number | undefined;
  lng?: number | undefined;
}

const ACTOR: Record<OpsAction, CommandContext['actor']> = {
  accept: 'restaurant',
  start: 'restaurant',
  ready: 'restaurant',
  'assign-rider': 'support',
  pickup: 'rider',
  deliver: 'rider',
  collect: 'restaurant',
  cancel: 'restaurant',
  refund: 'support',
  'rider-location': 'rider',
  pay: 'system',
  'fail-payment': 'system',
};

/**
 * The lengths of the text an action reads, in characters (code points, as the documents count).
 * Checked here, for every caller (/internal, `cli ops`, the sandbox's simulate), since what passes
 * is in the log for good and partners see it (a cancellation's reason); /internal's schema states
 * them too.
 */
export const OPS_TEXT_LIMITS = {
  reason: { min: 0, max: 200 },
  name: { min: 1, max: 100 },
  phone: { min: 4, max: 32 },
  vehicle: { min: 1, max: 40 },
} as const;

function checkTextLimits(args: OpsArgs): void {
  for (const field of Object.keys(OPS_TEXT_LIMITS) as Array<keyof typeof OPS_TEXT_LIMITS>) {
    const value = args[field];
    const { min, max } = OPS_TEXT_LIMITS[field];
    if (value === undefined) continue;
    // Partners see this text (the cancellation's reason, the rider in tracking): the API's text rule.
    if (!PRINTABLE_TEXT.test(value))
      throw new ApiError('validation_error', `${field} ${PRINTABLE_RULE}.`, { param: field });
    const n = characterCount(value);
    if (n >= min && n <= max) continue;
    const rule = min === 0 ? `at most ${max}` : `${min} to ${max}`;
    throw new ApiError('validation_error', `${field} must be ${rule} characters.`, { param: field });
  }
}

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined || value === '')
    throw new ApiError('validation_error', `${name} is required for this action.`, { param: name });
  return value;
}

export async function runOperation(
  deps: { orders: OrderService; riders: RiderLocations },
  orderId: string,
  action: OpsAction,
  args: OpsArgs,
  base: Omit<CommandContext, 'actor'> = {},
): Promise<OrderView> {
  checkTextLimits(args);
  const ctx: CommandContext = extend(base, { actor: ACTOR[action] });
  const order = await deps.orders.load(orderId);
  if (!order) throw new ApiError('order_not_found', `No order with id ${orderId}.`, { param: 'order_id' });
  if (action === 'rider-location') {
    await deps.riders.record(order, { lat: required(args.lat, 'lat'), lng: required(args.lng, 'lng') }, ctx);
    return order;
  }
  const command = commandFor(action, args, order);
  return (await deps.orders.operate(ctx, orderId, command)).order;
}

function commandFor(action: Exclude<OpsAction, 'rider-location'>, args: OpsArgs, order: OrderView): OrderCommand {
  switch (action) {
    case 'accept':
      return { type: 'accept', by: 'restaurant' };
    case 'start':
      return { type: 'startPreparing' };
    case 'ready':
      return { type: 'markReady' };
    case 'assign-rider':
      return {
        type: 'assignRider',
        rider: {
          name: required(args.name, 'name'),
          phone: required(args.phone, 'phone'),
          vehicle: required(args.vehicle, 'vehicle'),
        },
      };
    case 'pickup':
      return { type: 'pickUp' };
    case 'deliver':
      return { type: 'deliver' };
    case 'collect':
      return { type: 'collect' };
    case 'cancel':
      return { type: 'cancelByRestaurant', reason: args.reason ?? null };
    case 'refund':
      return args.amount === undefined ? { type: 'refund' } : { type: 'refund', amount: toMinor(args.amount, order) };
    case 'pay':
      return { type: 'recordPaymentSucceeded', amount: order.pricing.total, provider_ref: 'ops' };
    case 'fail-payment':
      return { type: 'recordPaymentFailed', reason: args.reason ?? 'declined' };
  }
}

function toMinor(amount: number | string, order: OrderView): number {
  try {
    return fromMajor(amount, order.currency);
  } catch (err) {
    // The amount does not fit the currency (api.md: invalid_amount); the refund itself is not judged yet.
    throw new ApiError('invalid_amount', `amount${(err as Error).message}`, { param: 'amount' });
  }
}

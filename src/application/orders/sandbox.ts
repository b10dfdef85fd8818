import { ApiError } from '../../domain/errors.js';
import type { Point } from '../../domain/catalog/model.js';
import type { OrderView } from '../../domain/order/state.js';
import { sandboxRiderPosition } from '../../domain/order/sandbox-rider.js';
import { runOperation, type OpsAction, type OpsArgs } from './operations.js';
import type { CatalogReader, OrderService, PartnerContext } from './order-service.js';
import { tracksRider, type RiderLocations } from './rider-locations.js';

/** What a sandbox partner can make happen to its order, as the real restaurant, rider, support or payment would. */
export type SimulateInput =
  | { action: 'payment_succeeded' }
  | { action: 'payment_failed'; reason?: string | undefined }
  | { action: 'restaurant_cancel'; reason: string }
  | { action: 'refund'; amount?: number | undefined }
  | { action: 'rider_location' };

export type SimulateAction = SimulateInput['action'];

/** The operators' action each simulation runs: one code path, so the same events, webhooks and refusals. */
const OPERATION: Record<SimulateAction, OpsAction> = {
  payment_succeeded: 'pay',
  payment_failed: 'fail-payment',
  restaurant_cancel: 'cancel',
  refund: 'refund',
  rider_location: 'rider-location',
};

/**
 * The sandbox: advancing an order along its path and simulating what the restaurant, the rider,
 * support and the payment provider do. The sandbox rider moves along `sandboxRiderPosition`, one
 * step per recorded position, so its track depends only on the order (store, customer, steps).
 */
export class Sandbox {
  constructor(private readonly deps: { orders: OrderService; riders: RiderLocations; catalog: CatalogReader }) {}

  /** One status along the path; a rider under way then moves one step (it has a position from its assignment). */
  async advance(ctx: PartnerContext, orderId: string): Promise<OrderView> {
    const { order } = await this.deps.orders.sandboxAdvance(ctx, orderId);
    if (!tracksRider(order)) return order;
    try {
      await this.moveRider(ctx, order);
    } catch (e) {
      // The advance is stored: a refused move (a concurrent call finished the order) must not turn it into a 409.
      if (!(e instanceof ApiError)) throw e;
    }
    return order;
  }

  /**
   * The route has refused live keys (403 sandbox_only); another partner's or environment's order is
   * 404, as everywhere; a live order is refused here too, as advance's decision does; then the
   * operators' action decides.
   */
  async simulate(ctx: PartnerContext, orderId: string, input: SimulateInput): Promise<OrderView> {
    const order = await this.deps.orders.get(ctx, orderId);
    if (order.environment !== 'sandbox') throw new ApiError('sandbox_only', 'Only sandbox orders can be simulated.');
    if (input.action === 'rider_location') return this.moveRider(ctx, order);
    return runOperation(this.deps, orderId, OPERATION[input.action], argsOf(input), cause(ctx));
  }

  private async moveRider(ctx: PartnerContext, order: OrderView): Promise<OrderView> {
    const step = await this.deps.riders.recorded(order.order_id);
    const point = this.route(order, step);
    return runOperation(this.deps, order.order_id, 'rider-location', point, cause(ctx));
  }

  /**
   * The point of `step` from the store to the customer. An order without a delivery location has
   * no rider, and the rider check refuses it before the point is used.
   */
  private route(order: OrderView, step: number): Point {
    const customer = locationOf(order.delivery_address);
    const store = this.deps.catalog.current().store(order.store.id)?.location;
    const from = store ?? customer ?? { lat: 0, lng: 0 };
    return sandboxRiderPosition(from, customer ?? from, step);
  }
}

function argsOf(input: Exclude<SimulateInput, { action: 'rider_location' }>): OpsArgs {
  switch (input.action) {
    case 'payment_succeeded':
      return {};
    case 'payment_failed':
      return { reason: input.reason };
    case 'restaurant_cancel':
      return { reason: input.reason };
    case 'refund':
      return { amount: input.amount };
  }
}

const cause = (ctx: PartnerContext) => ({ requestId: ctx.requestId, clientRequestId: ctx.clientRequestId });

function locationOf(address: Record<string, unknown> | null): Point | undefined {
  const location = address?.location as { lat?: unknown; lng?: unknown } | undefined;
  return typeof location?.lat === 'number' && typeof location.lng === 'number'
    ? { lat: location.lat, lng: location.lng }
    : undefined;
}

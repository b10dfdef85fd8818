import type { EventStore } from '../../ports/event-store.js';
import { ApiError } from '../../domain/errors.js';
import type { OrderView } from '../../domain/order/state.js';
import type { Clock } from '../../shared/clock.js';
import { eventMetadata } from '../event-metadata.js';
import type { CommandContext } from './context.js';

/**
 * Rider positions are frequent and disposable, so they live in their own bounded stream
 * (`rider-<orderId>`, newest RIDER_STREAM_MAX_COUNT kept) instead of the order stream.
 */
export const riderStream = (orderId: string): string => `rider-${orderId}`;
export const RIDER_STREAM_MAX_COUNT = 50;

const TRACKABLE = new Set(['confirmed', 'preparing', 'ready', 'out_for_delivery']);

/** Whether positions of the order's rider are recorded now: a rider is assigned and the order is under way. */
export const tracksRider = (order: OrderView): boolean => order.rider !== null && TRACKABLE.has(order.status);

export class RiderLocations {
  constructor(private readonly deps: { events: EventStore; clock: Clock }) {}

  /** How many positions have been recorded for the order (older ones may have been dropped). */
  async recorded(orderId: string): Promise<number> {
    const [last] = await this.deps.events.readStream(riderStream(orderId), { backwards: true, maxCount: 1 });
    return last ? last.revision + 1 : 0;
  }

  async record(order: OrderView, point: { lat: number; lng: number }, ctx: CommandContext): Promise<bigint> {
    if (!order.rider) throw new ApiError('invalid_transition', 'No rider is assigned to this order.');
    if (!TRACKABLE.has(order.status))
      throw new ApiError('invalid_transition', `The order is ${order.status}; rider positions are no longer recorded.`);
    if (!(Math.abs(point.lat) <= 90 && Math.abs(point.lng) <= 180)) {
      throw new ApiError('validation_error', 'lat must be within -90..90 and lng within -180..180.', { param: 'lat' });
    }
    const at = this.deps.clock.now().toISOString();
    const stream = riderStream(order.order_id);
    const result = await this.deps.events.append(
      stream,
      [
        {
          type: 'RiderLocationUpdated',
          data: { order_id: order.order_id, lat: point.lat, lng: point.lng, at },
          metadata: eventMetadata({ actor: ctx.actor, cause: ctx, owner: order, at }),
        },
      ],
      { expectedRevision: 'any' },
    );
    if (result.nextExpectedRevision === 0) await this.deps.events.setStreamMaxCount(stream, RIDER_STREAM_MAX_COUNT);
    return result.position;
  }
}

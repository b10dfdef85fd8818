import type { Projection } from './projection.js';
import { ordersList } from './orders-list.js';
import { riderPositions } from './rider-positions.js';
import { webhookDeliveries } from './webhook-deliveries.js';
import { webhookEvents } from './webhook-events.js';

/** A projection with its document type forgotten, so different read models share one list. */
export type AnyProjection = Projection<unknown>;

/** Every read model the service maintains. */
export const PROJECTIONS: readonly AnyProjection[] = [ordersList, riderPositions, webhookDeliveries, webhookEvents];

import type { Projection } from './projection.js';
import { ordersList } from './orders-list.js';
import { riderPositions } from './rider-positions.js';
import { webhookDeliveries } from './webhook-deliveries.js';

/** A projection with its document type forgotten, so different read models share one list. */
export type AnyProjection = Projection<unknown>;
const erase = <D>(p: Projection<D>): AnyProjection => p as unknown as AnyProjection;

/** Every read model the service maintains. */
export const PROJECTIONS: readonly AnyProjection[] = [
  erase(ordersList),
  erase(riderPositions),
  erase(webhookDeliveries),
];

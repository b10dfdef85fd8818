import type { Point } from '../catalog/model.js';

/** Steps the sandbox rider takes from the store to the customer. */
export const SANDBOX_ROUTE_STEPS = 5;

/**
 * Where the sandbox rider is after `step` moves: on the straight line from the store (step 0) to
 * the customer (step SANDBOX_ROUTE_STEPS and after), an equal share of it per step. A pure function
 * of the order, so a replay gives the same positions. Rounded to 6 decimals (about 0.1 m).
 */
export function sandboxRiderPosition(store: Point, customer: Point, step: number): Point {
  const share = Math.min(Math.max(step, 0), SANDBOX_ROUTE_STEPS) / SANDBOX_ROUTE_STEPS;
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return {
    lat: round(store.lat + (customer.lat - store.lat) * share),
    lng: round(store.lng + (customer.lng - store.lng) * share),
  };
}

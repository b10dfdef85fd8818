/**
 * Distances, delivery zones and delivery quotes. Distances are great-circle (haversine)
 * metres, rounded to whole metres; zones are checked on the lat/lng plane, which is exact
 * enough at city scale.
 */
import type { Currency } from '../money.js';
import type { DeliveryZone, Point, Store } from './model.js';
import { storeStatus, type StatusFn, type StoreStatusValue } from './status.js';

const EARTH_RADIUS_M = 6_371_008.8; // mean Earth radius (IUGG)

export function distanceMetres(a: Point, b: Point): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return Math.round(2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h))));
}

/** Ray casting: a point exactly on an edge may fall either way, which is fine for delivery. */
export function pointInPolygon(p: Point, polygon: readonly Point[]): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const a = polygon[i]!;
    const b = polygon[j]!;
    const crosses = a.lat > p.lat !== b.lat > p.lat;
    if (crosses && p.lng < ((b.lng - a.lng) * (p.lat - a.lat)) / (b.lat - a.lat) + a.lng) inside = !inside;
  }
  return inside;
}

export function inDeliveryZone(
  store: Pick<Store, 'location' | 'delivery_zone'>,
  point: Point,
  distance = distanceMetres(store.location, point),
): boolean {
  const zone: DeliveryZone = store.delivery_zone;
  return zone.type === 'radius' ? distance <= zone.radius_m : pointInPolygon(point, zone.points);
}

/** Fee of the first rule whose up_to_m covers the distance; past the last rule, the last fee. */
export function deliveryFee(store: Pick<Store, 'delivery_fee_rules'>, distance: number): number {
  const rules = store.delivery_fee_rules;
  return (rules.find((r) => distance <= r.up_to_m) ?? rules[rules.length - 1]!).fee;
}

/** Extra minutes a busy kitchen adds to the estimate. */
export const BUSY_EXTRA_MIN = 15;
/** Rider pace through city traffic (about 20 km/h) plus hand-over time. */
const RIDER_METRES_PER_MIN = 333;
const HANDOVER_MIN = 5;

export interface DeliveryQuote {
  store_id: string;
  /** The point is inside the store's delivery zone. Out of zone is an answer, not an error. */
  in_zone: boolean;
  /** Straight-line distance from the store, whole metres. */
  distance_m: number;
  /** Minor units of `currency`; null when out of zone. */
  delivery_fee: number | null;
  currency: Currency;
  /** Minor units: the subtotal an order needs. */
  minimum_order: number;
  /** Preparation plus riding time; null when out of zone. */
  estimated_minutes: number | null;
  store_status: StoreStatusValue;
  accepting_orders: boolean;
}

export function deliveryQuote(store: Store, point: Point, at: Date, statusOf: StatusFn = storeStatus): DeliveryQuote {
  const distance = distanceMetres(store.location, point);
  const inZone = inDeliveryZone(store, point, distance);
  const status = statusOf(store, at);
  return {
    store_id: store.id,
    in_zone: inZone,
    distance_m: distance,
    delivery_fee: inZone ? deliveryFee(store, distance) : null,
    currency: store.currency,
    minimum_order: store.minimum_order,
    estimated_minutes: inZone ? estimatedMinutes(store, distance) : null,
    store_status: status.status,
    accepting_orders: status.accepting_orders,
  };
}

export function estimatedMinutes(store: Pick<Store, 'prep_time_min' | 'busy'>, distance: number): number {
  const riding = Math.ceil(distance / RIDER_METRES_PER_MIN) + HANDOVER_MIN;
  return store.prep_time_min + (store.busy ? BUSY_EXTRA_MIN : 0) + riding;
}

/**
 * Delivery quotes that hold: the terms a quote promises and whether they hold for an order.
 * Pure; signing the terms into an id that cannot be forged is the application's job
 * (src/application/orders/quotes.ts).
 */
import { ApiError } from '../errors.js';
import { distanceMetres } from '../catalog/geo.js';
import type { Point } from '../catalog/model.js';
import type { Fulfilment } from './events.js';

/** How long a quote holds after it is given. */
export const QUOTE_TTL_MS = 10 * 60 * 1000;
/** How far the order's delivery location may be from the quoted point. */
export const QUOTE_RADIUS_M = 100;

/** What a quote promises; who it was given to (partner, environment, store) is bound by its signature. */
export interface QuoteTerms {
  /** Epoch milliseconds. */
  expires_at: number;
  location: Point;
  /** Minor units of the store's currency. */
  delivery_fee: number;
  estimated_minutes: number;
}

/** What an order placed with a quote keeps of it. */
export interface HeldQuote {
  id: string;
  delivery_fee: number;
  estimated_minutes: number;
}

/**
 * The terms an order gets from a valid quote, or the refusal: pickup orders have no delivery to
 * quote (422 quote_mismatch), an expired quote is 409 quote_expired, a location more than
 * QUOTE_RADIUS_M from the quoted point is 422 quote_mismatch.
 */
export function holdQuote(
  id: string,
  terms: QuoteTerms,
  order: { fulfilment: Fulfilment; location?: Point | undefined },
  at: Date,
): HeldQuote {
  if (order.fulfilment !== 'delivery' || !order.location) {
    throw new ApiError('quote_mismatch', 'A delivery quote applies to delivery orders only; leave quote_id out.', {
      param: 'quote_id',
    });
  }
  if (at.getTime() >= terms.expires_at) {
    throw new ApiError(
      'quote_expired',
      `The quote expired at ${new Date(terms.expires_at).toISOString()}; get a new one from GET /v1/stores/{store_id}/delivery-quote.`,
      { param: 'quote_id' },
    );
  }
  const distance = distanceMetres(terms.location, order.location);
  if (distance > QUOTE_RADIUS_M) {
    throw new ApiError(
      'quote_mismatch',
      `delivery_address.location is ${distance} m from the quoted point; a quote holds within ${QUOTE_RADIUS_M} m.`,
      { param: 'quote_id' },
    );
  }
  return { id, delivery_fee: terms.delivery_fee, estimated_minutes: terms.estimated_minutes };
}

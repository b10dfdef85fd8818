import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../domain/errors.js';
import type { Environment } from '../../domain/environment.js';
import type { DeliveryQuote } from '../../domain/catalog/geo.js';
import type { Point } from '../../domain/catalog/model.js';
import { holdQuote, QUOTE_TTL_MS, type HeldQuote, type QuoteTerms } from '../../domain/order/quote.js';
import type { Clock } from '../../shared/clock.js';

/**
 * Quote ids are signed, self-contained tokens rather than stored records. A quote is a GET that
 * partners call for every address a customer types; storing each would turn a read into a write
 * (and a store that grows with browsing, to be purged) while only a few quotes ever become orders.
 * A signed id keeps the GET a read, needs no lookup when the order is placed, and holds on every
 * replica that shares the signing key.
 *
 * The id carries the terms (expiry, quoted point, fee, estimate) and an HMAC-SHA256 over them and
 * over who the quote was given to (partner, environment, store), which the id does not carry: a
 * quote presented by another partner, in the other environment or for another store fails the
 * check exactly like an edited or made-up one (422 quote_mismatch). The signing key is derived
 * (HKDF) from the service's one secret key, WEBHOOK_SECRETS_KEY or the embedded key file: a
 * deployment already shares that key between replicas (it is required with READ_STORE=mongodb),
 * and the derivation keeps the two uses apart. Changing that key voids the quotes given before
 * (at most QUOTE_TTL_MS of them): they answer quote_mismatch and the partner asks again.
 *
 * Layout (47 bytes, base64url after `quo_`): version 1 (1 byte), expires_at in epoch ms (8),
 * lat and lng (float64, 8 each), fee in minor units (uint32, 4), estimated minutes (uint16, 2),
 * the first 16 bytes of the HMAC.
 */
const VERSION = 1;
const TERMS_BYTES = 1 + 8 + 8 + 8 + 4 + 2;
const MAC_BYTES = 16;
const PREFIX = 'quo_';

export interface QuoteHolder {
  partnerId: string;
  environment: Environment;
}

export interface IssuedQuote {
  /** Null when the point is out of zone: there is no fee to hold. */
  id: string | null;
  expires_at: string | null;
}

export class DeliveryQuotes {
  private key: Buffer | undefined;

  /** `secretKey` is read on first use, so a process that never quotes never reads it. */
  constructor(private readonly deps: { secretKey: () => Buffer; clock: Clock }) {}

  private signingKey(): Buffer {
    this.key ??= Buffer.from(hkdfSync('sha256', this.deps.secretKey(), '', 'delivery-quote-signing v1', 32));
    return this.key;
  }

  /** The id and expiry of a quote the catalog has just computed for `holder` at `point`. */
  issue(holder: QuoteHolder, quote: DeliveryQuote, point: Point): IssuedQuote {
    if (quote.delivery_fee === null || quote.estimated_minutes === null) return { id: null, expires_at: null };
    const expires = this.deps.clock.now().getTime() + QUOTE_TTL_MS;
    const terms: QuoteTerms = {
      expires_at: expires,
      location: { lat: point.lat, lng: point.lng },
      delivery_fee: quote.delivery_fee,
      estimated_minutes: quote.estimated_minutes,
    };
    const body = encodeTerms(terms);
    const mac = this.mac(holder, quote.store_id, body);
    return {
      id: PREFIX + Buffer.concat([body, mac]).toString('base64url'),
      expires_at: new Date(expires).toISOString(),
    };
  }

  /**
   * The quote's fee and estimate for an order about to be placed, or the refusal (ApiError
   * quote_mismatch / quote_expired). Time is the service clock's.
   */
  redeem(
    holder: QuoteHolder,
    id: string,
    order: { store_id: string; fulfilment: 'delivery' | 'pickup'; location?: Point | undefined },
  ): HeldQuote {
    const terms = this.verify(holder, order.store_id, id);
    return holdQuote(id, terms, order, this.deps.clock.now());
  }

  private verify(holder: QuoteHolder, storeId: string, id: string): QuoteTerms {
    const raw = id.startsWith(PREFIX) ? Buffer.from(id.slice(PREFIX.length), 'base64url') : Buffer.alloc(0);
    // Buffer.from ignores characters outside base64url, so the id must also be the exact encoding.
    const wellFormed =
      raw.length === TERMS_BYTES + MAC_BYTES &&
      raw[0] === VERSION &&
      raw.toString('base64url') === id.slice(PREFIX.length);
    const body = raw.subarray(0, TERMS_BYTES);
    if (!wellFormed || !timingSafeEqual(raw.subarray(TERMS_BYTES), this.mac(holder, storeId, body))) {
      throw new ApiError(
        'quote_mismatch',
        'The quote was not given for this store, partner and environment, or it was altered; get a new one.',
        { param: 'quote_id' },
      );
    }
    return decodeTerms(body);
  }

  private mac(holder: QuoteHolder, storeId: string, body: Buffer): Buffer {
    return createHmac('sha256', this.signingKey())
      .update(`${holder.environment}\0${holder.partnerId}\0${storeId}\0`)
      .update(body)
      .digest()
      .subarray(0, MAC_BYTES);
  }
}

function encodeTerms(t: QuoteTerms): Buffer {
  const b = Buffer.alloc(TERMS_BYTES);
  b.writeUInt8(VERSION, 0);
  b.writeBigUInt64BE(BigInt(t.expires_at), 1);
  b.writeDoubleBE(t.location.lat, 9);
  b.writeDoubleBE(t.location.lng, 17);
  b.writeUInt32BE(t.delivery_fee, 25);
  b.writeUInt16BE(Math.min(t.estimated_minutes, 0xffff), 29);
  return b;
}

function decodeTerms(b: Buffer): QuoteTerms {
  return {
    expires_at: Number(b.readBigUInt64BE(1)),
    location: { lat: b.readDoubleBE(9), lng: b.readDoubleBE(17) },
    delivery_fee: b.readUInt32BE(25),
    estimated_minutes: b.readUInt16BE(29),
  };
}

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DeliveryQuotes } from '../../src/application/orders/quotes.js';
import type { DeliveryQuote } from '../../src/domain/catalog/geo.js';
import { ApiError } from '../../src/domain/errors.js';
import { ManualClock } from '../../src/shared/clock.js';

const holder = { partnerId: 'ptr_A', environment: 'sandbox' as const };
const point = { lat: 29.371, lng: 48.077839 };
const computed: DeliveryQuote = {
  store_id: 'kw-shawarma-reem',
  in_zone: true,
  distance_m: 4010,
  delivery_fee: 500,
  currency: 'KWD',
  minimum_order: 2000,
  estimated_minutes: 31,
  store_status: 'open',
  accepting_orders: true,
};
const order = { store_id: 'kw-shawarma-reem', fulfilment: 'delivery' as const, location: point };

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
  return 'held';
}

describe('signed delivery quotes', () => {
  it('when another replica with the same key redeems a quote, then it holds the same terms', () => {
    const key = randomBytes(32);
    const clock = new ManualClock();
    const issuer = new DeliveryQuotes({ secretKey: () => key, clock });
    const replica = new DeliveryQuotes({ secretKey: () => Buffer.from(key), clock });
    const { id, expires_at } = issuer.issue(holder, computed, point);
    expect(id).toMatch(/^quo_[A-Za-z0-9_-]{63}$/);
    expect(expires_at).toBe('2026-11-21T12:10:00.000Z');
    expect(replica.redeem(holder, id!, order)).toEqual({ id, delivery_fee: 500, estimated_minutes: 31 });
  });

  it('when the service key changed since the quote, then the quote is a mismatch', () => {
    const clock = new ManualClock();
    const { id } = new DeliveryQuotes({ secretKey: () => randomBytes(32), clock }).issue(holder, computed, point);
    const other = new DeliveryQuotes({ secretKey: () => randomBytes(32), clock });
    expect(refusal(() => other.redeem(holder, id!, order))).toBe('quote_mismatch');
  });

  it('when any byte of the id changes, then the quote is a mismatch', () => {
    const clock = new ManualClock();
    const quotes = new DeliveryQuotes({ secretKey: () => randomBytes(32), clock });
    const id = quotes.issue(holder, computed, point).id!;
    const raw = Buffer.from(id.slice(4), 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const edited = Buffer.from(raw);
      edited[i] = edited[i]! ^ 0x01;
      expect(
        refusal(() => quotes.redeem(holder, `quo_${edited.toString('base64url')}`, order)),
        `byte ${i}`,
      ).toBe('quote_mismatch');
    }
  });

  it('when the point is out of zone, then there is no id; the secret key is not read until a quote is signed', () => {
    let reads = 0;
    const quotes = new DeliveryQuotes({ secretKey: () => (reads++, randomBytes(32)), clock: new ManualClock() });
    expect(
      quotes.issue(holder, { ...computed, in_zone: false, delivery_fee: null, estimated_minutes: null }, point),
    ).toEqual({ id: null, expires_at: null });
    expect(reads).toBe(0);
  });
});

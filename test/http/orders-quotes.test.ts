import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { demoCatalog, demoCatalogWith, newKey, orderBody, REEM, ADDRESS } from '../support/orders.js';

let t: TestService;
let p: TestPartner;

/** About 4 km north of Shawarma Al Reem: the 0.5 KWD band of its fee rules. */
const FOUR_KM = { lat: 29.371, lng: 48.077839 };
/** About 80 m and 150 m further north of FOUR_KM. */
const EIGHTY_M_AWAY = { lat: 29.37172, lng: 48.077839 };
const FAR_AWAY = { lat: 29.37235, lng: 48.077839 };
const TEN_MINUTES = 10 * 60 * 1000;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner();
});
afterAll(() => t.close());

const quote = (key: string, point = FOUR_KM, storeId = REEM.store_id) =>
  t.http.get(`/v1/stores/${storeId}/delivery-quote`).query(point).set(bearer(key));

async function quoteId(key = p.sandbox, point = FOUR_KM, storeId = REEM.store_id): Promise<string> {
  const res = await quote(key, point, storeId);
  expect(res.status).toBe(200);
  return res.body.data.id as string;
}

const place = (key: string, over: Record<string, unknown>) =>
  t.http.post('/v1/orders').set(bearer(key)).set('Idempotency-Key', newKey()).send(orderBody(over));

const at = (location: { lat: number; lng: number }) => ({ delivery_address: { ...ADDRESS, location } });

describe('delivery quotes', () => {
  it('when a point is in the zone, then the quote has a quo_ id that expires in 10 minutes', async () => {
    const res = await quote(p.sandbox);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ in_zone: true, delivery_fee: 0.5, currency: 'KWD' });
    expect(res.body.data.id).toMatch(/^quo_[A-Za-z0-9_-]+$/);
    expect(res.body.data.expires_at).toBe(new Date(t.clock.now().getTime() + TEN_MINUTES).toISOString());
  });

  it('when the point is out of zone, then the quote has no id to hold', async () => {
    const res = await quote(p.sandbox, REEM.far);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ in_zone: false, delivery_fee: null, id: null, expires_at: null });
  });
});

describe('orders placed with a quote', () => {
  it('when the fee rules change after the quote, then the order is charged the quoted fee and starts from its estimate', async () => {
    const q = await quote(p.sandbox);
    const id = q.body.data.id as string;
    // The store now charges 0.9 KWD for the same distance.
    const rules = [{ up_to_m: 10_000, fee: 900 }];
    await t.service.services.catalog.import(demoCatalogWith({ [REEM.store_id]: { delivery_fee_rules: rules } }));
    try {
      const held = await place(p.sandbox, { ...at(FOUR_KM), quote_id: id });
      expect(held.status).toBe(201);
      expect(held.body.data).toMatchObject({
        quote_id: id,
        estimated_minutes: q.body.data.estimated_minutes,
        pricing: { delivery_fee: 0.5 },
      });
      // Without a quote, as before: today's fee and no estimate.
      const plain = await place(p.sandbox, at(FOUR_KM));
      expect(plain.status).toBe(201);
      expect(plain.body.data).toMatchObject({
        quote_id: null,
        estimated_minutes: null,
        pricing: { delivery_fee: 0.9 },
      });
    } finally {
      await t.service.services.catalog.import(demoCatalog());
    }
  });

  it('when the order is placed 1 ms before the quote expires, then it holds; at the expiry, 409 quote_expired', async () => {
    const id = await quoteId();
    t.clock.advance(TEN_MINUTES - 1);
    expect((await place(p.sandbox, { ...at(FOUR_KM), quote_id: id })).status).toBe(201);
    t.clock.advance(1);
    const expired = await place(p.sandbox, { ...at(FOUR_KM), quote_id: id });
    expect(expired.status).toBe(409);
    expect(expired.body.error).toMatchObject({ code: 'quote_expired', param: 'quote_id' });
  });

  it('when a retry of a quoted order comes after the expiry, then it replays the order (200)', async () => {
    const id = await quoteId();
    const key = newKey();
    const body = orderBody({ ...at(FOUR_KM), quote_id: id });
    const first = await t.http.post('/v1/orders').set(bearer(p.sandbox)).set('Idempotency-Key', key).send(body);
    expect(first.status).toBe(201);
    t.clock.advance(TEN_MINUTES + 1);
    const retry = await t.http.post('/v1/orders').set(bearer(p.sandbox)).set('Idempotency-Key', key).send(body);
    expect(retry.status).toBe(200);
    expect(retry.body.data.id).toBe(first.body.data.id);
  });

  it('when the delivery location is within 100 m of the quoted point, then it holds; farther, 422 quote_mismatch', async () => {
    const id = await quoteId();
    expect((await place(p.sandbox, { ...at(EIGHTY_M_AWAY), quote_id: id })).status).toBe(201);
    const far = await place(p.sandbox, { ...at(FAR_AWAY), quote_id: id });
    expect(far.status).toBe(422);
    expect(far.body.error.code).toBe('quote_mismatch');
    expect(far.body.error.message).toMatch(/m from the quoted point/);
  });

  it('when the quote was given for another store, partner or environment, then 422 quote_mismatch', async () => {
    const other = await t.partner({ name: 'Other Partner' });
    const burgerQuote = await quoteId(p.sandbox, { lat: 29.34, lng: 48.031 }, 'kw-burger-hub');
    const cases = [
      { key: p.sandbox, id: burgerQuote },
      { key: other.sandbox, id: await quoteId(p.sandbox) },
      { key: p.live, id: await quoteId(p.sandbox) },
    ];
    for (const c of cases) {
      const res = await place(c.key, { ...at(FOUR_KM), quote_id: c.id });
      expect(res.status, c.id).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'quote_mismatch', param: 'quote_id' });
    }
  });

  it('when a quote id is edited or made up, then 422 quote_mismatch', async () => {
    const id = await quoteId();
    const body = id.slice('quo_'.length);
    const flipped = (body[10] === 'A' ? 'B' : 'A') as string;
    const edited = `quo_${body.slice(0, 10)}${flipped}${body.slice(11)}`;
    for (const forged of [edited, 'quo_AAAA', `quo_${'A'.repeat(body.length)}`]) {
      const res = await place(p.sandbox, { ...at(FOUR_KM), quote_id: forged });
      expect(res.status, forged).toBe(422);
      expect(res.body.error.code).toBe('quote_mismatch');
    }
    const malformed = await place(p.sandbox, { ...at(FOUR_KM), quote_id: 'not-a-quote' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('validation_error');
  });

  it('when a pickup order carries a quote_id, then 422 quote_mismatch', async () => {
    const id = await quoteId();
    const body = orderBody({ fulfilment: 'pickup', quote_id: id });
    delete body.delivery_address;
    const res = await t.http.post('/v1/orders').set(bearer(p.sandbox)).set('Idempotency-Key', newKey()).send(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('quote_mismatch');
  });
});

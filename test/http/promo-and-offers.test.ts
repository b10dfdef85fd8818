// A promo code and an automatic offer do not add up: the order gets the better of the two, and
// POST /v1/promo-codes/validate says beforehand exactly what placement then charges (demo catalog).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { ADDRESS, orderBody, placeOrder, REEM } from '../support/orders.js';

let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner();
});
afterAll(() => t.close());

const validate = (code: string, items: unknown) =>
  t.http
    .post('/v1/promo-codes/validate')
    .set(bearer(p.sandbox))
    .send({ code, store_id: REEM.store_id, items, location: ADDRESS.location });

// 2.900 KWD: the automatic 20% (0.580) beats REEM5 (0.500 off).
const BIG = orderBody().items;
// 3 wraps, 2.100 KWD: REEM5 (0.500) beats the automatic 20% (0.420).
const SMALL = [{ item_id: 'chicken-shawarma-wrap', quantity: 3, modifier_ids: ['size-regular'] }];

describe('promo code versus automatic offer', () => {
  it('when the automatic offer takes more off than the code, then the order gets the offer, as validate said', async () => {
    const check = await validate('reem5', BIG);
    expect(check.status).toBe(200);
    expect(check.body.data).toMatchObject({
      valid: true,
      discount: 0.5,
      applied: false,
      order_discount: 0.58,
      order_offer_id: 'off-reem-20',
    });
    const withCode = await placeOrder(t.http, p.sandbox, { items: BIG, promo_code: 'reem5' });
    const without = await placeOrder(t.http, p.sandbox, { items: BIG });
    expect(withCode.status).toBe(201);
    expect(withCode.body.data.pricing.discount).toBe(check.body.data.order_discount);
    expect(withCode.body.data).toMatchObject({ offer_id: 'off-reem-20', promo_code: null });
    // Entering the code never makes the customer pay more.
    expect(withCode.body.data.pricing.total).toBe(without.body.data.pricing.total);
  });

  it('when the code takes more off than the automatic offer, then the order gets the code, as validate said', async () => {
    const check = await validate('REEM5', SMALL);
    expect(check.body.data).toMatchObject({
      valid: true,
      discount: 0.5,
      applied: true,
      order_discount: 0.5,
      order_offer_id: 'off-reem5',
    });
    const withCode = await placeOrder(t.http, p.sandbox, { items: SMALL, promo_code: 'REEM5' });
    const without = await placeOrder(t.http, p.sandbox, { items: SMALL });
    expect(withCode.status).toBe(201);
    expect(withCode.body.data).toMatchObject({ offer_id: 'off-reem5', promo_code: 'REEM5' });
    expect(withCode.body.data.pricing.discount).toBe(0.5);
    expect(without.body.data).toMatchObject({ offer_id: 'off-reem-20', promo_code: null });
    expect(without.body.data.pricing.discount).toBe(0.42);
    expect(withCode.body.data.pricing.total).toBeLessThan(without.body.data.pricing.total);
  });

  it('when the code is not valid, then validate has no order discount and placement refuses it', async () => {
    const check = await validate('RAMADAN2020', BIG);
    expect(check.body.data).toMatchObject({ valid: false, applied: false, order_discount: null, order_offer_id: null });
    const placed = await placeOrder(t.http, p.sandbox, { items: BIG, promo_code: 'RAMADAN2020' });
    expect(placed.status).toBe(422);
    expect(placed.body.error).toMatchObject({ code: 'invalid_promo_code', reason: 'expired' });
  });
});

describe('a basket validate and placement both refuse', () => {
  it.each([
    ['an option repeated', ['size-large', 'size-large'], 400, 'validation_error', 'items[0].modifier_ids[1]'],
    [
      'two options of a choose-one group',
      ['size-large', 'size-regular'],
      422,
      'invalid_modifiers',
      'items[0].modifier_ids',
    ],
    ['no option of a required group', [], 422, 'invalid_modifiers', 'items[0].modifier_ids'],
  ])(
    'when a line has %s, then validate refuses it as placement does',
    async (_label, modifierIds, status, code, param) => {
      const items = [{ item_id: 'chicken-shawarma-wrap', quantity: 3, modifier_ids: modifierIds }];
      const check = await validate('reem5', items);
      const placed = await placeOrder(t.http, p.sandbox, { items, promo_code: 'reem5' });
      for (const res of [check, placed]) {
        expect(res.status, JSON.stringify(res.body)).toBe(status);
        expect(res.body.error).toMatchObject({ code, param });
      }
      expect(check.body.error.message).toBe(placed.body.error.message);
    },
  );
});

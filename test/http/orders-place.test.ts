import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { ADDRESS, newKey, orderBody, placeOrder, REEM } from '../support/orders.js';
import { settledHead } from '../support/webhook-events.js';
import { base62Value } from '../support/base62.js';

let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner();
});
afterAll(() => t.close());

const post = (body: Record<string, unknown>, key = newKey()) =>
  t.http.post('/v1/orders').set(bearer(p.sandbox)).set('Idempotency-Key', key).send(body);

describe('POST /v1/orders: placing', () => {
  it('when a sandbox key places a delivery order, then 201 with a placed sbx_ order priced by the service', async () => {
    const res = await post(orderBody({ tip: 0.5 }));
    expect(res.status).toBe(201);
    const o = res.body.data;
    expect(o.id).toMatch(/^sbx_/);
    expect(o).toMatchObject({
      object: 'order',
      environment: 'sandbox',
      status: 'placed',
      fulfilment: 'delivery',
      reference: 'partner-ref-1',
    });
    expect(o.store).toEqual({ id: REEM.store_id, name: 'Shawarma Al Reem' });
    expect(o.order_number).toMatch(/^[2-9A-Z]{3}-[2-9A-Z]{3}$/);
    // (0.700 + 0.300 large + 0.100 toum) x 2 + 0.700 hummus = 2.900 KWD; 20% store offer (cap 1.5) = 0.580.
    expect(o.pricing).toEqual({
      subtotal: 2.9,
      delivery_fee: 0,
      tip: 0.5,
      discount: 0.58,
      total: 2.82,
      currency: 'KWD',
    });
    expect(o.payment).toEqual({ method: 'cash', status: 'pending', refunded_amount: 0 });
    expect(o.lines[0]).toMatchObject({
      item_id: 'chicken-shawarma-wrap',
      quantity: 2,
      unit_price: 0.7,
      line_total: 2.2,
    });
    expect(o.updated_at).toBe(t.clock.now().toISOString());
  });

  it('when a live key places an order, then its id starts ord_ and the environment is live', async () => {
    const res = await placeOrder(t.http, p.live);
    expect(res.status).toBe(201);
    expect(res.body.data.id).toMatch(/^ord_/);
    expect(res.body.data.environment).toBe('live');
  });

  it('when two orders are placed at one instant, then their ids differ and begin with that instant', async () => {
    const [a, b] = [await placeOrder(t.http, p.live), await placeOrder(t.http, p.live)];
    expect(a.body.data.id).not.toBe(b.body.data.id);
    // 22 base62 digits of 16 bytes, the first 6 the placement's millisecond (docs/orders.md).
    const millisecond = (id: string) => base62Value(id.slice(4)) >> 80n;
    expect([a, b].map((r) => millisecond(r.body.data.id))).toEqual([a, b].map(() => BigInt(t.clock.now().getTime())));
  });

  it('when a promo code takes more off than the automatic offer, then it replaces the offer', async () => {
    // 3 wraps (2.100 KWD): REEM5 takes 0.500 off, the automatic 20% only 0.420.
    const items = [{ item_id: 'chicken-shawarma-wrap', quantity: 3, modifier_ids: ['size-regular'] }];
    const res = await post(orderBody({ items, promo_code: 'reem5' }));
    expect(res.status).toBe(201);
    expect(res.body.data.promo_code).toBe('REEM5');
    expect(res.body.data.offer_id).toBe('off-reem5');
  });

  it('when the automatic offer takes more off than the promo code, then the order keeps the offer', async () => {
    // 2.900 KWD: the automatic 20% takes 0.580 off, REEM5 only 0.500 (test/http/promo-and-offers.test.ts).
    const res = await post(orderBody({ promo_code: 'reem5' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ promo_code: null, offer_id: 'off-reem-20' });
    expect(res.body.data.pricing.discount).toBe(0.58);
  });

  // Every reason, each with an order that gives that reason and no other (the demo catalog's codes).
  it.each([
    ['unknown_code', 'NOPE123', {}],
    ['not_yet_valid', 'FUTURE2099', {}],
    ['expired', 'RAMADAN2020', {}],
    // REEM5 belongs to Shawarma Al Reem; this order is for a Dubai store.
    [
      'wrong_store',
      'REEM5',
      {
        store_id: 'dxb-shawarma-station',
        items: [
          { item_id: 'chicken-shawarma-wrap', quantity: 3, modifier_ids: ['size-regular'] },
          { item_id: 'beef-shawarma-wrap', quantity: 1, modifier_ids: ['size-regular'] },
        ],
        delivery_address: { ...ADDRESS, location: { lat: 25.0821, lng: 55.1465 } },
      },
    ],
    // DUBAI15 is a platform code in AED: a KWD store is not eligible.
    ['not_eligible', 'DUBAI15', {}],
    // WELCOME10 needs 3.000 KWD; the basket is 2.900.
    ['below_minimum', 'WELCOME10', {}],
    // FREEDEL takes the delivery fee off, and delivery within 3 km of the store is free.
    ['no_discount', 'FREEDEL', {}],
  ])('when the promo code is %s (%s), then 422 invalid_promo_code with that reason', async (reason, code, over) => {
    const res = await post(orderBody({ ...over, promo_code: code }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_promo_code', param: 'promo_code', reason });
    // The message says it in words; the field keeps the code.
    expect(res.body.error.message).toMatch(/^The promo code cannot be applied: [a-z' ,]+\.$/);
    expect(res.body.error.message).not.toContain(`: ${reason}.`);
  });

  it('when the order is for pickup, then there is no delivery fee and no address is needed', async () => {
    const body = orderBody({ fulfilment: 'pickup' });
    delete body.delivery_address;
    const res = await post(body);
    expect(res.status).toBe(201);
    expect(res.body.data.pricing.delivery_fee).toBe(0);
    expect(res.body.data.delivery_address).toBeNull();
  });

  it('when an AED store is ordered from, then amounts have 2 decimals', async () => {
    const res = await post(
      orderBody({
        store_id: 'dxb-shawarma-station',
        items: [
          { item_id: 'chicken-shawarma-wrap', quantity: 3, modifier_ids: ['size-regular'] },
          { item_id: 'beef-shawarma-wrap', quantity: 1, modifier_ids: ['size-regular'] },
        ],
        delivery_address: { ...ADDRESS, location: { lat: 25.0821, lng: 55.1465 } },
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.pricing.currency).toBe('AED');
    expect(res.body.data.pricing.subtotal).toBe(34.5);
    const { subtotal, delivery_fee, tip, discount, total } = res.body.data.pricing;
    expect(Math.round((subtotal + delivery_fee + tip - discount) * 100)).toBe(Math.round(total * 100));
  });
});

describe('POST /v1/orders: business errors', () => {
  it('when an item is sold out, then 422 item_unavailable naming the line', async () => {
    const res = await post(
      orderBody({
        items: [
          { item_id: 'hummus', quantity: 3 },
          { item_id: 'fresh-lemon-mint', quantity: 1 },
        ],
      }),
    );
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'item_unavailable', param: 'items[1].item_id' });
  });

  it('when the store is closed whatever the time, then 422 store_closed', async () => {
    const res = await post(orderBody({ store_id: 'kw-boom-seafood', items: [{ item_id: 'x', quantity: 1 }] }));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('store_closed');
  });

  it('when the address is outside the zone, then 422 out_of_zone', async () => {
    const res = await post(orderBody({ delivery_address: { ...ADDRESS, location: REEM.far } }));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('out_of_zone');
  });

  it('when the subtotal is under the store minimum, then 422 below_minimum_order', async () => {
    const res = await post(orderBody({ items: [{ item_id: 'laban', quantity: 1 }] }));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('below_minimum_order');
    // Amounts in messages are major units with the currency's decimals, as everywhere in the API.
    expect(res.body.error.message).toMatch(/at least \d+\.\d{3} KWD; this order's is \d+\.\d{3} KWD\.$/);
    const store = await t.http.get(`/v1/stores/${REEM.store_id}`).set(bearer(p.sandbox));
    expect(res.body.error).toMatchObject({ minimum_order: store.body.data.minimum_order, currency: 'KWD' });
    expect(res.body.error.message).toContain(`at least ${store.body.data.minimum_order.toFixed(3)} KWD`);
  });

  it('when the store or item is unknown, then 404 with its code', async () => {
    const store = await post(orderBody({ store_id: 'no-such-store' }));
    expect(store.status).toBe(404);
    expect(store.body.error.code).toBe('store_not_found');
    const item = await post(orderBody({ items: [{ item_id: 'no-such-item', quantity: 1 }] }));
    expect(item.status).toBe(404);
    expect(item.body.error).toMatchObject({ code: 'item_not_found', param: 'items[0].item_id' });
  });
});

describe('POST /v1/orders: validation', () => {
  const wrap = (modifier_ids: string[]) => ({
    items: [{ item_id: 'chicken-shawarma-wrap', quantity: 3, modifier_ids }],
  });
  it.each([
    ['no lines', { items: [] }, 'items'],
    ['51 lines', { items: Array.from({ length: 51 }, () => ({ item_id: 'hummus', quantity: 1 })) }, 'items'],
    ['quantity 0', { items: [{ item_id: 'hummus', quantity: 0 }] }, 'items[0].quantity'],
    ['quantity 100', { items: [{ item_id: 'hummus', quantity: 100 }] }, 'items[0].quantity'],
    ['a fractional quantity', { items: [{ item_id: 'hummus', quantity: 1.5 }] }, 'items[0].quantity'],
    ['the same option twice', wrap(['size-large', 'extra-toum', 'extra-toum']), 'items[0].modifier_ids[2]'],
    ['an invalid phone', { customer: { name: 'A', phone: '12345' } }, 'customer.phone'],
    ['a phone without +', { customer: { name: 'A', phone: '96550001234' } }, 'customer.phone'],
    ['an empty customer name', { customer: { name: ' ', phone: '+96550001234' } }, 'customer.name'],
    ['delivery without an address', { delivery_address: undefined }, 'delivery_address'],
    ['an address without location', { delivery_address: { line1: 'x', area: 'y' } }, 'delivery_address.location'],
    ['an unknown fulfilment', { fulfilment: 'drone' }, 'fulfilment'],
    ['an unknown payment method', { payment_method: 'bitcoin' }, 'payment_method'],
    ['a reference over 100 characters', { reference: 'r'.repeat(101) }, 'reference'],
    ['a reference with a newline', { reference: 'abc\r\nX-Injected: 1' }, 'reference'],
    ['a negative tip', { tip: -1 }, 'tip'],
    ['an unknown field', { total: 1 }, 'total'],
    ['a string store id', { store_id: 42 }, 'store_id'],
  ])('when the body has %s, then 400 validation_error naming %s', async (_label, over, param) => {
    const res = await post(orderBody(over));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.param).toBe(param);
  });

  // Rules of the catalog and the store's currency, which the document cannot state: 422 (docs/api.md).
  it.each([
    ['an option of another item', wrap(['size-large', 'rice-white']), 'invalid_modifiers', 'items[0].modifier_ids[1]'],
    ['a required group left out', wrap(['extra-toum']), 'invalid_modifiers', 'items[0].modifier_ids'],
    ['two options of a max-1 group', wrap(['size-large', 'size-jumbo']), 'invalid_modifiers', 'items[0].modifier_ids'],
    ['a tip with 4 decimals in KWD', { tip: 0.0001 }, 'invalid_amount', 'tip'],
  ])('when the body has %s, then 422 %s naming %s', async (_label, over, code, param) => {
    const res = await post(orderBody(over));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code, param });
  });

  // Lengths are counted as JSON Schema counts them (code points), so a client validating against the
  // document agrees with the service: an emoji is one character, not two UTF-16 units.
  it('when text is at its length in characters but longer in UTF-16 units, then it is accepted; one more is 400', async () => {
    const at = await post(
      orderBody({ reference: '😀'.repeat(100), customer: { name: '😀'.repeat(100), phone: '+96550001234' } }),
    );
    expect(at.status, JSON.stringify(at.body)).toBe(201);
    expect(at.body.data.reference).toBe('😀'.repeat(100));
    const over = await post(orderBody({ reference: '😀'.repeat(101) }));
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'validation_error', param: 'reference' });
  });

  it('when the phone is written with spaces, dashes or an extension, then the order holds it in E.164', async () => {
    for (const phone of ['+965 5000-1234', '+96550001234 ext 12']) {
      const res = await post(orderBody({ customer: { name: 'Sara', phone } }));
      expect(res.status).toBe(201);
      expect(res.body.data.customer.phone).toBe('+96550001234');
    }
    const text = await post(orderBody({ customer: { name: 'Sara', phone: '+965 5000 1234 call after 5' } }));
    expect(text.body.error).toMatchObject({ code: 'validation_error', param: 'customer.phone' });
  });

  it('when the Idempotency-Key is missing, too short, too long, has a tab or a comma and a space, then 400 validation_error', async () => {
    const missing = await t.http.post('/v1/orders').set(bearer(p.sandbox)).send(orderBody());
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'validation_error', param: 'Idempotency-Key' });
    // 'a, b' is also what a proxy merging two Idempotency-Key lines sends.
    for (const key of ['short', 'k'.repeat(65), 'tab\there-key', 'key-one1, key-two2']) {
      const res = await post(orderBody(), key);
      expect(res.status, key).toBe(400);
      expect(res.body.error.param).toBe('Idempotency-Key');
    }
  });

  it('when the Idempotency-Key is sent on two lines, then 400 and nothing is written (joined, they would be a third key)', async () => {
    const before = await settledHead(t.service);
    const res = await t.http
      .post('/v1/orders')
      .set(bearer(p.sandbox))
      // Two header lines (superagent sends an array as one line each; its types say otherwise).
      .set('Idempotency-Key', [newKey(), newKey()] as unknown as string)
      .send(orderBody());
    expect([res.status, res.body.error?.code, res.body.error?.param, res.body.error?.message]).toEqual([
      400,
      'validation_error',
      'Idempotency-Key',
      'Send one Idempotency-Key header, not several.',
    ]);
    expect(await t.stores.events.headPosition()).toBe(before);
  });

  it('when the Idempotency-Key has spaces between its characters, then it is a key like any other', async () => {
    const key = `retry of ${newKey()}`.slice(0, 64);
    const first = await post(orderBody(), key);
    expect(first.status).toBe(201);
    const again = await post(orderBody(), key);
    expect([again.status, again.headers['idempotent-replayed'], again.body.data.id]).toEqual([
      200,
      'true',
      first.body.data.id,
    ]);
  });

  it('when the body is refused, then nothing is written to the event store', async () => {
    const before = await settledHead(t.service);
    await post(orderBody({ items: [] }));
    await post(orderBody({ store_id: 'kw-boom-seafood' }));
    await post(orderBody({ items: [{ item_id: 'fresh-lemon-mint', quantity: 1 }] }));
    expect(await t.stores.events.headPosition()).toBe(before);
  });
});

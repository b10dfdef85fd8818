// Validation answers in words a partner can act on: the field's path, then what it must be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { newKey, orderBody, placeOrder } from '../support/orders.js';

let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner();
});
afterAll(() => t.close());

const post = (body: unknown) =>
  t.http
    .post('/v1/orders')
    .set(bearer(p.sandbox))
    .set('Idempotency-Key', newKey())
    .set('Content-Type', 'application/json')
    .send(typeof body === 'string' ? body : JSON.stringify(body));

describe('validation messages', () => {
  it('when a required field is missing, then "<path> is required"', async () => {
    const res = await post(orderBody({ customer: { phone: '+96550001234' } }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'validation_error',
      param: 'customer.name',
      message: 'customer.name is required.',
    });
  });

  it('when a quantity is out of range, then the message gives the type and both bounds', async () => {
    const res = await post(orderBody({ items: [{ item_id: 'hummus', quantity: 0 }] }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      param: 'items[0].quantity',
      message: expect.stringMatching(/^items\[0\]\.quantity must be an integer from 1 to \d+\.$/),
    });
    const fraction = await post(orderBody({ items: [{ item_id: 'hummus', quantity: 1.5 }] }));
    expect(fraction.body.error.message).toMatch(/^items\[0\]\.quantity must be an integer/);
  });

  it('when several fields fail, then every one is in details, each a sentence naming its field', async () => {
    const res = await post(orderBody({ fulfilment: 'drone', items: [], payment_method: undefined, nickname: 'x' }));
    expect(res.status).toBe(400);
    const byParam = Object.fromEntries(
      (res.body.error.details as { param: string; message: string }[]).map((d) => [d.param, d.message]),
    );
    expect(byParam).toMatchObject({
      fulfilment: 'fulfilment must be one of "delivery", "pickup".',
      items: expect.stringMatching(/^items must have 1 to \d+ items\.$/),
      payment_method: 'payment_method is required.',
      nickname: 'nickname is not a field of this request.',
    });
    expect(res.body.error.message).toBe(res.body.error.details[0].message);
  });

  it('when a text field is too long or has the wrong type, then it says so with the limit', async () => {
    const long = await post(orderBody({ reference: 'r'.repeat(101) }));
    expect(long.body.error.message).toBe('reference must be 1 to 100 characters.');
    const number = await post(orderBody({ reference: 42 }));
    expect(number.body.error.message).toBe('reference must be a string.');
  });

  it('when a list is given as a string, then it is only told it must be an array, not the size rules of the list too', async () => {
    const res = await post(orderBody({ items: 'hummus'.repeat(10) }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param: 'items', message: 'items must be an array.' });
    expect(res.body.error.details).toBeUndefined();
  });

  it('when an option is chosen twice, then the message names the repeat and the option', async () => {
    const items = [{ item_id: 'chicken-shawarma-wrap', quantity: 1, modifier_ids: ['size-large', 'size-large'] }];
    const res = await post(orderBody({ items }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      param: 'items[0].modifier_ids[1]',
      message: 'items[0].modifier_ids[1] repeats option size-large.',
    });
  });

  it.each(['null', '123', '"text"', 'true', '[]'])(
    'when the body is %s, then 400 "the body must be a JSON object", not "not valid JSON"',
    async (text) => {
      const res = await post(text);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'validation_error',
        param: 'body',
        message: 'The request body must be a JSON object.',
      });
    },
  );

  it('when a JSON body is empty (Content-Length 0), then it is told the body is required, not each field', async () => {
    const res = await post('');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'validation_error',
      param: 'body',
      message: 'A JSON request body is required.',
    });
    expect(res.body.error.details).toBeUndefined();
  });

  it('when the body is not JSON at all, then it still says not valid JSON', async () => {
    const res = await post('{"store_id": ');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', message: 'The request body is not valid JSON.' });
  });

  it('when a query parameter is unknown or out of range, then its name leads the message', async () => {
    const unknown = await t.http.get('/v1/stores?expand=menu').set(bearer(p.sandbox));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      param: 'expand',
      message: 'expand is not a query parameter of this endpoint.',
    });
    const limit = await t.http.get('/v1/stores?limit=0').set(bearer(p.sandbox));
    expect(limit.status).toBe(400);
    expect(limit.body.error.message).toMatch(/^limit must be /);
  });

  it.each([
    '/v1/orders?reference=a1234567&reference=a1234567',
    '/v1/orders?status=placed&status=placed',
    '/v1/orders?created_after=2026-01-01T00:00:00Z&created_after=2026-01-01T00:00:00Z',
    '/v1/events?type=order.created&type=order.created',
    '/v1/events?delivery_success=true&delivery_success=false',
    '/v1/stores?limit=1&limit=2',
  ])('when a parameter is repeated (%s), then it is told to give it once, whatever its values', async (path) => {
    const name = path.split('?')[1]!.split('=')[0]!;
    const res = await t.http.get(path).set(bearer(p.sandbox));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param: name, message: `${name} must be given once.` });
  });

  it('when a required query parameter is missing, then "<name> is required"', async () => {
    const search = await t.http.get('/v1/search').set(bearer(p.sandbox));
    expect(search.body.error).toMatchObject({ param: 'q', message: 'q is required.' });
    const quote = await t.http.get('/v1/stores/kw-shawarma-reem/delivery-quote?lng=48').set(bearer(p.sandbox));
    expect(quote.body.error).toMatchObject({ param: 'lat', message: 'lat is required.' });
  });

  it('when a number is past its bound and past the safe range, then details says it once', async () => {
    const body = { ...orderBody(), items: [{ item_id: 'chicken-shawarma-wrap', quantity: 1e20 }] };
    const res = await t.http.post('/v1/orders').set(bearer(p.sandbox)).set('Idempotency-Key', newKey()).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param: 'items[0].quantity' });
    expect(res.body.error.details).toBeUndefined();
  });

  it('when a simulation names no action or an unknown one, then it says action is required or lists the actions', async () => {
    const q = await t.partner();
    const id = (await placeOrder(t.http, q.sandbox)).body.data.id as string;
    const simulate = (body: object) =>
      t.http.post(`/v1/sandbox/orders/${id}/simulate`).set(bearer(q.sandbox)).send(body);
    expect((await simulate({})).body.error).toMatchObject({ param: 'action', message: 'action is required.' });
    const unknown = await simulate({ action: 'teleport' });
    expect(unknown.body.error.param).toBe('action');
    expect(unknown.body.error.message).toMatch(/^action must be one of "payment_succeeded", /);
  });

  it('when a body comes in an unsupported Content-Encoding, then 415 names the encoding', async () => {
    const res = await t.http
      .post('/v1/orders')
      .set(bearer(p.sandbox))
      .set('Idempotency-Key', newKey())
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'zstd')
      .send('{}');
    expect(res.status).toBe(415);
    expect(res.body.error.message).toBe(
      'Content-Encoding zstd is not supported: send the body as is, or with gzip, deflate or br.',
    );
  });

  it('when an endpoint without query parameters gets one, then 400 names it and nothing is done', async () => {
    const q = await t.partner();
    const created = await placeOrder(t.http, q.sandbox);
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const dryRun = await t.http
      .post('/v1/orders?dry_run=true')
      .set(bearer(q.sandbox))
      .set('Idempotency-Key', newKey())
      .send(orderBody());
    expect(dryRun.status).toBe(400);
    expect(dryRun.body.error).toMatchObject({
      code: 'validation_error',
      param: 'dry_run',
      message: 'dry_run is not a query parameter of this endpoint.',
    });
    const cancel = await t.http.post(`/v1/orders/${id}/cancel?force=1`).set(bearer(q.sandbox)).send({});
    expect(cancel.status).toBe(400);
    expect(cancel.body.error.param).toBe('force');
    const order = await t.http.get(`/v1/orders/${id}`).set(bearer(q.sandbox));
    expect(order.body.data.status).not.toBe('cancelled');
    const orders = await t.http.get('/v1/orders?limit=100').set(bearer(q.sandbox));
    expect(orders.body.data.map((o: { id: string }) => o.id)).toEqual([id]);
    expect((await t.http.get(`/v1/orders/${id}?expand=x`).set(bearer(q.sandbox))).status).toBe(400);
    // The public pages ignore them: probes and browsers add their own.
    expect((await t.http.get('/healthz?probe=1')).status).toBe(200);
  });

  it('when the Idempotency-Key header is missing, then the message names the header once', async () => {
    const res = await t.http.post('/v1/orders').set(bearer(p.sandbox)).send(orderBody());
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      param: 'Idempotency-Key',
      message: 'The Idempotency-Key header is required.',
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { getCountryCallingCode } from 'libphonenumber-js';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { newKey, orderBody, placeOrder } from '../support/orders.js';
import { EVENT_TYPES } from '../../src/domain/webhook/event-types.js';
import { ORDER_ID_PATTERN, PHONE_COUNTRIES, PHONE_PATTERN, Phone } from '../../src/http/schemas/order.js';
import { DELIVERY_ID_PATTERN, EVENT_ID_PATTERN, INSTANT_PATTERN } from '../../src/http/schemas/webhooks.js';

// Issue 26: the partner document states what POST /v1/orders, PUT /v1/webhooks/endpoint and the
// list filters of orders, deliveries and events accept, links the resources a POST creates, and the
// service refuses what it refused before, with the same answers.

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema; $ref?: string };
type Parameter = { name: string; in: string; schema: Schema; description?: string };
type Link = { operationId: string; parameters: Record<string, string> };
type Operation = {
  operationId: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { links?: Record<string, Link> }>;
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

let t: TestService;
let p: TestPartner;
let doc: Doc;

beforeAll(async () => {
  t = await startTestService({
    env: { WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' },
    // hooks.example.com resolves to loopback, where nothing listens: registration passes, deliveries fail.
    webhooks: { resolve: async () => ['127.0.0.1'] },
  });
  p = await t.partner();
  doc = (await t.http.get('/v1/openapi.json')).body as Doc;
});
afterAll(() => t.close());

const resolve = (s: Schema): Schema =>
  s.$ref ? doc.components.schemas[s.$ref.replace('#/components/schemas/', '')]! : s;
const operation = (id: string): Operation => {
  for (const ops of Object.values(doc.paths)) for (const op of Object.values(ops)) if (op.operationId === id) return op;
  throw new Error(`no operation ${id}`);
};
const parameter = (id: string, name: string): Parameter => {
  const found = operation(id).parameters?.find((x) => x.name === name);
  if (!found) throw new Error(`${id} has no parameter ${name}`);
  return found;
};
const body = (id: string): Schema => resolve(operation(id).requestBody!.content['application/json']!.schema);
const get = (path: string) => t.http.get(path).set(bearer(p.sandbox));

/** A deterministic stream of pseudo-random numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe('POST /v1/orders: customer.phone', () => {
  it('the document gives the phone pattern of the served countries and describes the rest of the rule and its 400', () => {
    const phone = resolve(body('createOrder').properties!.customer!).properties!.phone!;
    expect(phone.pattern).toBe(PHONE_PATTERN);
    expect(phone.maxLength).toBe(32);
    expect(phone.description).toContain('must be a valid phone number in international format');
    for (const country of PHONE_COUNTRIES) expect(PHONE_PATTERN).toContain(`${getCountryCallingCode(country)}(?:`);
    // ASCII digits only: a tool reading `\d` as any Unicode digit would generate numbers the service refuses.
    expect(PHONE_PATTERN).not.toContain('\\d');
  });

  it("for numbers of the served countries, the pattern and the service's check agree: every match is accepted, every other refused", () => {
    const pattern = new RegExp(PHONE_PATTERN);
    const next = random(26);
    let matched = 0;
    for (const country of PHONE_COUNTRIES) {
      const code = getCountryCallingCode(country);
      for (let i = 0; i < 4000; i++) {
        // National numbers of 4 to 13 random digits.
        const length = 4 + Math.floor(next() * 10);
        let national = '';
        for (let d = 0; d < length; d++) national += String(Math.floor(next() * 10));
        const number = `+${code}${national}`;
        const accepted = Phone.safeParse(number).success;
        expect(accepted, number).toBe(pattern.test(number));
        if (accepted) {
          matched++;
          // Answered in E.164, which matches the pattern too (a national prefix 0 after the code dropped).
          const normalised = Phone.parse(number);
          expect(normalised, number).toMatch(/^\+[1-9][0-9]{6,14}$/);
          expect(normalised, number).toMatch(pattern);
          expect(number.replace(new RegExp(`^\\+${code}0`), `+${code}`), number).toBe(normalised);
        }
      }
    }
    // The sample reaches both sides of the rule.
    expect(matched).toBeGreaterThan(500);
  });

  it('when a number matching the pattern of each served country is sent, then the order is placed with it; a refused one is still 400 with the same message', async () => {
    for (const phone of ['+96550001234', '+97333123456', '+96892123456', '+962791234567', '+971501234567']) {
      expect(phone).toMatch(new RegExp(PHONE_PATTERN));
      const res = await placeOrder(t.http, p.sandbox, { customer: { name: 'Fatima', phone } });
      expect(res.status, phone).toBe(201);
      expect(res.body.data.customer.phone).toBe(phone);
    }
    // With the national prefix (in the pattern) or spaces (not in it): accepted as before, answered in E.164.
    for (const [phone, e164] of [
      ['+9710501234567', '+971501234567'],
      ['+965 5000 1234', '+96550001234'],
    ]) {
      const res = await placeOrder(t.http, p.sandbox, { customer: { name: 'Fatima', phone } });
      expect(res.status, phone).toBe(201);
      expect(res.body.data.customer.phone).toBe(e164);
    }
    expect('+9710501234567').toMatch(new RegExp(PHONE_PATTERN));
    for (const phone of ['96550001234', '+9655000123', '+96510001234', '+1', 'not a phone']) {
      const res = await placeOrder(t.http, p.sandbox, { customer: { name: 'Fatima', phone } });
      expect(res.status, phone).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'validation_error',
        param: 'customer.phone',
        message: 'customer.phone must be a valid phone number in international format, e.g. +96550000000.',
      });
    }
  });
});

describe('POST /v1/orders: delivery_address', () => {
  it('the document requires delivery_address for a delivery order, as the service does', async () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(doc, 'doc');
    const validate = ajv.getSchema('doc#/components/schemas/PlaceOrderRequest')!;
    const { delivery_address: _address, ...withoutAddress } = orderBody();
    expect(validate(orderBody())).toBe(true);
    expect(validate({ ...withoutAddress, fulfilment: 'pickup' })).toBe(true);
    expect(validate(withoutAddress)).toBe(false);

    const refused = await t.http
      .post('/v1/orders')
      .set(bearer(p.sandbox))
      .set('Idempotency-Key', newKey())
      .send(withoutAddress);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      param: 'delivery_address',
      message: 'delivery_address is required for delivery orders.',
    });
    expect(body('createOrder').description).toContain('delivery_address is required for delivery orders.');
    const pickup = await t.http
      .post('/v1/orders')
      .set(bearer(p.sandbox))
      .set('Idempotency-Key', newKey())
      .send({ ...withoutAddress, fulfilment: 'pickup' });
    expect(pickup.status).toBe(201);
  });
});

describe('PUT /v1/webhooks/endpoint: event types', () => {
  it('the document gives the event types as the enum of the items of events and enabled_events', () => {
    const schema = body('putWebhookEndpoint');
    for (const name of ['events', 'enabled_events']) {
      expect(schema.properties![name]!.items!.enum, name).toEqual([...EVENT_TYPES]);
    }
    expect(operation('putWebhookEndpoint').description).toContain(
      'enabled_events and events name the same list: give one of them (or both with the same types).',
    );
  });

  it('when an unknown type is sent, then 400; two different lists, 422; known types are accepted', async () => {
    const put = (b: Record<string, unknown>) => t.http.put('/v1/webhooks/endpoint').set(bearer(p.sandbox)).send(b);
    const unknown = await put({
      url: 'https://hooks.example.com/orders',
      enabled_events: ['order.created', 'order.eaten'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      code: 'validation_error',
      param: 'enabled_events',
      message: 'enabled_events: unknown event type "order.eaten".',
    });
    const different = await put({
      url: 'https://hooks.example.com/orders',
      events: ['order.created'],
      enabled_events: ['order.refunded'],
    });
    // Both lists match the document; that they differ is a rule it cannot state: 422 (docs/api.md).
    expect(different.status).toBe(422);
    expect(different.body.error.code).toBe('conflicting_parameters');
    expect(different.body.error.message).toBe(
      'enabled_events and events name the same list: give one of them (or both with the same types).',
    );
    const ok = await put({ url: 'https://hooks.example.com/orders', events: [...EVENT_TYPES] });
    expect([200, 201]).toContain(ok.status);
    expect(ok.body.data.enabled_events).toEqual([...EVENT_TYPES]);
  });

  it('when the lists come back as GET shows them (null for all), then that is all types; null beside a list is 422', async () => {
    const put = (b: Record<string, unknown>) => t.http.put('/v1/webhooks/endpoint').set(bearer(p.sandbox)).send(b);
    const some = await put({ url: 'https://hooks.example.com/orders', enabled_events: ['order.created'] });
    expect([200, 201]).toContain(some.status);
    const conflicting = await put({
      url: 'https://hooks.example.com/orders',
      events: ['order.created'],
      enabled_events: null,
    });
    expect([conflicting.status, conflicting.body.error?.code]).toEqual([422, 'conflicting_parameters']);
    for (const body of [{ enabled_events: null }, { events: null }, { events: null, enabled_events: null }]) {
      expect((await put({ url: 'https://hooks.example.com/orders', enabled_events: ['order.created'] })).status).toBe(
        200,
      );
      const all = await put({ url: 'https://hooks.example.com/orders', ...body });
      expect([all.status, all.body.data.enabled_events, all.body.data.events], JSON.stringify(body)).toEqual([
        200,
        null,
        null,
      ]);
    }
    // GET's answer, its url changed, sent back as it is (less what only answers carry).
    const shown = (await t.http.get('/v1/webhooks/endpoint').set(bearer(p.sandbox))).body.data;
    const back = await put({
      url: 'https://hooks.example.com/v2',
      events: shown.events,
      enabled_events: shown.enabled_events,
    });
    expect([back.status, back.body.data.url, back.body.data.enabled_events]).toEqual([
      200,
      'https://hooks.example.com/v2',
      null,
    ]);
  });
});

describe('list filters: id patterns and time ranges', () => {
  it('the document gives the id pattern of each cursor and id parameter, and real ids match them', async () => {
    expect(parameter('listOrders', 'starting_after').schema).toMatchObject({
      pattern: ORDER_ID_PATTERN,
      maxLength: 80,
    });
    expect(parameter('listWebhookDeliveries', 'starting_after').schema).toMatchObject({
      pattern: DELIVERY_ID_PATTERN,
      maxLength: 80,
    });
    expect(parameter('listEvents', 'starting_after').schema).toMatchObject({
      pattern: EVENT_ID_PATTERN,
      maxLength: 80,
    });
    for (const id of ['getOrder', 'cancelOrder', 'createPaymentLink', 'getOrderTracking', 'advanceSandboxOrder'])
      expect(parameter(id, 'order_id').schema.pattern, id).toBe(ORDER_ID_PATTERN);
    expect(parameter('getWebhookDelivery', 'delivery_id').schema.pattern).toBe(DELIVERY_ID_PATTERN);
    expect(parameter('redeliverWebhook', 'delivery_id').schema.pattern).toBe(DELIVERY_ID_PATTERN);
    expect(parameter('getEvent', 'event_id').schema.pattern).toBe(EVENT_ID_PATTERN);

    const sandbox = await placeOrder(t.http, p.sandbox);
    const live = await placeOrder(t.http, p.live);
    expect(sandbox.body.data.id).toMatch(new RegExp(ORDER_ID_PATTERN));
    expect(live.body.data.id).toMatch(new RegExp(ORDER_ID_PATTERN));
    await t.http.put('/v1/webhooks/endpoint').set(bearer(p.sandbox)).send({ url: 'https://hooks.example.com/orders' });
    const test = await t.http.post('/v1/webhooks/test').set(bearer(p.sandbox));
    expect(test.status).toBe(202);
    expect(test.body.data.id).toMatch(new RegExp(DELIVERY_ID_PATTERN));
    expect(test.body.data.event_id).toMatch(new RegExp(EVENT_ID_PATTERN));
  });

  it("when a cursor is well-formed but not one of the caller's ids, then 404 naming it; another form is 400; the documents say so", async () => {
    const cases = [
      ['/v1/orders', 'listOrders', 'order', 'sbx_0000000000000000000000'],
      ['/v1/webhooks/deliveries', 'listWebhookDeliveries', 'delivery', `whd_${'0'.repeat(32)}`],
      ['/v1/events', 'listEvents', 'event', `evt_${'0'.repeat(32)}`],
    ] as const;
    for (const [path, id, what, cursor] of cases) {
      const res = await get(`${path}?starting_after=${cursor}`);
      expect(res.status, `${path} ${cursor}`).toBe(404);
      expect(res.body.error).toMatchObject({
        code: `${what}_not_found`,
        param: 'starting_after',
        message: `starting_after: no ${what} with id ${cursor}.`,
      });
      expect(parameter(id, 'starting_after').description).toContain(
        `404 ${what}_not_found "starting_after: no ${what} with id …"`,
      );
      const bogus = await get(`${path}?starting_after=bogus`);
      expect(bogus.status, `${path} bogus`).toBe(400);
      expect(bogus.body.error).toMatchObject({ code: 'validation_error', param: 'starting_after' });
    }
  });

  it('when an id of another form is in the path, then 404 as before', async () => {
    expect((await get('/v1/orders/not-an-order')).status).toBe(404);
    expect((await get('/v1/webhooks/deliveries/not-a-delivery')).status).toBe(404);
    expect((await get('/v1/events/not-an-event')).status).toBe(404);
  });

  it("the time filters give the check's own pattern; a form it refuses is still 400, and a reversed range is an empty page, as documented", async () => {
    for (const [id, name] of [
      ['listOrders', 'created_after'],
      ['listOrders', 'created_before'],
      ['listEvents', 'created_after'],
      ['listEvents', 'created_before'],
    ] as const) {
      expect(parameter(id, name).schema, `${id} ${name}`).toMatchObject({
        format: 'date-time',
        pattern: INSTANT_PATTERN,
      });
    }
    const since = resolve(body('recoverWebhooks')).properties!.since!;
    expect(since.pattern).toBe(INSTANT_PATTERN);
    expect(since.description).toContain('since: must be within the last 30 days');

    const instant = new RegExp(INSTANT_PATTERN);
    for (const ok of ['2026-11-21T10:00:00Z', '2026-11-21T10:00:00.5+03:00', '2024-02-29T23:59:59.123456Z'])
      expect(ok).toMatch(instant);
    for (const refused of [
      '2026-11-21t10:00:00z',
      '2026-11-21T10:00Z',
      '2026-11-21T23:59:60Z',
      '2025-02-29T00:00:00Z',
    ]) {
      expect(refused).not.toMatch(instant);
      const res = await get(`/v1/orders?created_after=${encodeURIComponent(refused)}`);
      expect(res.status, refused).toBe(400);
      expect(res.body.error.param).toBe('created_after');
    }

    await placeOrder(t.http, p.sandbox);
    await t.http.put('/v1/webhooks/endpoint').set(bearer(p.sandbox)).send({ url: 'https://hooks.example.com/orders' });
    expect((await t.http.post('/v1/webhooks/test').set(bearer(p.sandbox))).status).toBe(202);
    const now = t.clock.now().getTime();
    const range = (after: number, before: number) =>
      `created_after=${encodeURIComponent(new Date(after).toISOString())}&created_before=${encodeURIComponent(new Date(before).toISOString())}`;
    for (const path of ['/v1/orders', '/v1/events']) {
      const around = await get(`${path}?${range(now - 60_000, now + 60_000)}`);
      expect(around.status).toBe(200);
      expect(around.body.data.length, path).toBeGreaterThan(0);
      const reversed = await get(`${path}?${range(now + 60_000, now - 60_000)}`);
      expect(reversed.status, path).toBe(200);
      expect(reversed.body.data, path).toEqual([]);
    }
    for (const id of ['listOrders', 'listEvents'])
      expect(operation(id).description).toContain(
        'with `created_after` at or after `created_before` the page is empty',
      );
  });
});

describe('links', () => {
  it('POST /v1/orders links the order it answers to its reads, cancel, payment, tracking and the sandbox operations', () => {
    const expected = [
      'getOrder',
      'cancelOrder',
      'createPaymentLink',
      'getOrderTracking',
      'advanceSandboxOrder',
      'simulateSandboxOrder',
    ];
    for (const status of ['201', '200']) {
      const links = Object.values(operation('createOrder').responses[status]!.links ?? {});
      expect(links.map((l) => l.operationId).sort(), status).toEqual([...expected].sort());
      for (const link of links) {
        expect(link.parameters).toEqual({ order_id: '$response.body#/data/id' });
        expect(operation(link.operationId).parameters?.some((x) => x.in === 'path' && x.name === 'order_id')).toBe(
          true,
        );
      }
    }
  });

  it('POST /v1/webhooks/test links the delivery it answers to its read and redelivery, and its event', () => {
    const links = operation('sendTestWebhook').responses['202']!.links ?? {};
    expect(Object.values(links).map((l) => [l.operationId, l.parameters])).toEqual(
      expect.arrayContaining([
        ['getWebhookDelivery', { delivery_id: '$response.body#/data/id' }],
        ['redeliverWebhook', { delivery_id: '$response.body#/data/id' }],
        ['getEvent', { event_id: '$response.body#/data/event_id' }],
      ]),
    );
  });

  it('when a link is followed with the value it names, then the linked operation answers for the created resource', async () => {
    const placed = await t.http
      .post('/v1/orders')
      .set(bearer(p.sandbox))
      .set('Idempotency-Key', newKey())
      .send(orderBody({ payment_method: 'card' }));
    expect(placed.status).toBe(201);
    const id = placed.body.data.id as string;
    expect((await get(`/v1/orders/${id}`)).body.data.id).toBe(id);
    expect((await get(`/v1/orders/${id}/tracking`)).body.data.order_id).toBe(id);
    const payment = await t.http.post(`/v1/orders/${id}/payment`).set(bearer(p.sandbox));
    expect(payment.status).toBe(201);
    expect(payment.body.data.order_id).toBe(id);
  });
});

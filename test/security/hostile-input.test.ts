import fs from 'node:fs';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerAdmin } from '../../src/application/partners.js';
import { idempotencyStream } from '../../src/application/orders/idempotency.js';
import { loadConfig } from '../../src/config.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { MAX_TIP } from '../../src/domain/money.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { http, type Http } from '../support/http.js';
import { newKey, orderBody } from '../support/orders.js';
import { bearer, tempDataDir } from '../support/service.js';
import { settledHead } from '../support/webhook-events.js';

// Input that is malformed below the level of the schema: compressed bodies that do not decompress,
// text that is not well-formed Unicode, numbers in forms Number() reads but the API does not, tips
// no one means, and a caller's X-Request-Id posing as the service's. A 4xx in the envelope every
// time, nothing stored, and no error logged.

const lines: LogLine[] = [];
const sink = jsonLineSink(lines);

let dataDir: string;
let stores: Stores;
let service: Service;
let api: Http;
let key: string;
let partnerId: string;

beforeAll(async () => {
  dataDir = tempDataDir();
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info', SQLITE_SYNCHRONOUS: 'NORMAL' });
  const clock = new ManualClock();
  stores = await openStores(config);
  service = await buildService(config, stores, {
    logger: createLogger({ level: 'info', destination: sink }),
    clock,
    webhooks: { lease: { ttlMs: 6 * 3_600_000, tickMs: 3_600_000 } },
  });
  api = http(service.app);
  const created = await new PartnerAdmin(stores.partners, clock, 1200).createPartner({
    name: 'Hostile',
    rateLimitPerMin: 100_000,
  });
  key = created.sandbox.key;
  partnerId = created.partner.id;
});
afterAll(async () => {
  await service.stop();
  await stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const errorsLogged = () => lines.filter((l) => (l.level as number) >= 50);

function expectRefused(
  res: { status: number; headers: Record<string, string>; body: { error?: Record<string, unknown> } },
  status: number,
  code: string,
  param?: string,
): void {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
  expect(res.body.error?.code).toBe(code);
  expect(res.body.error?.request_id).toBe(res.headers['x-request-id']);
  if (param !== undefined) expect(res.body.error?.param).toBe(param);
}

// superagent would serialise a Buffer sent as application/json into JSON: send the bytes as they are.
const asIs = (body: unknown) => body as string;

const placeRaw = (bytes: Buffer | string, headers: Record<string, string> = {}) => {
  const req = api
    .post('/v1/orders')
    .set(bearer(key))
    .set('Idempotency-Key', newKey())
    .set('Content-Type', 'application/json')
    .serialize(asIs);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.send(bytes);
};

describe('compressed bodies that do not decompress', () => {
  const json = Buffer.from(JSON.stringify(orderBody()));
  const gzip = zlib.gzipSync(json);
  const deflate = zlib.deflateSync(json);
  const br = zlib.brotliCompressSync(json);
  const CASES: Array<[string, string, Buffer]> = [
    ['gzip, not gzip at all', 'gzip', Buffer.from('{"store_id":"x"}')],
    ['gzip, cut short', 'gzip', gzip.subarray(0, gzip.length - 12)],
    ['gzip, empty', 'gzip', Buffer.alloc(0)],
    [
      'gzip, corrupt in the middle',
      'gzip',
      Buffer.concat([gzip.subarray(0, 20), Buffer.alloc(30, 0xff), gzip.subarray(50)]),
    ],
    ['deflate, not deflate', 'deflate', Buffer.from('xx')],
    ['deflate, cut short', 'deflate', deflate.subarray(0, 8)],
    ['br, not brotli', 'br', Buffer.from('zzzzzz')],
    ['br, cut short', 'br', br.subarray(0, br.length - 5)],
  ];

  it.each(CASES)(
    '%s: 400 validation_error naming the body (401 without a key, before it is read), nothing logged as an error',
    async (_label, encoding, bytes) => {
      const before = await settledHead(service);
      const errors = errorsLogged().length;
      expectRefused(await placeRaw(bytes, { 'Content-Encoding': encoding }), 400, 'validation_error', 'body');
      const anonymous = await api
        .post('/v1/orders')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', encoding)
        .serialize(asIs)
        .send(bytes);
      expectRefused(anonymous, 401, 'missing_api_key');
      expect(errorsLogged().length, JSON.stringify(errorsLogged().slice(errors))).toBe(errors);
      expect(await stores.events.headPosition()).toBe(before);
    },
  );

  it('a valid gzip, deflate or brotli body is read as usual', async () => {
    for (const [encoding, bytes] of [
      ['gzip', gzip],
      ['deflate', deflate],
      ['br', br],
    ] as const) {
      const res = await placeRaw(bytes, { 'Content-Encoding': encoding });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });

  it('a gzip bomb (10 MB of zeros in 10 KB) is still 413 payload_too_large', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(10_000_000, 0x20));
    expect(bomb.length).toBeLessThan(20_000);
    expectRefused(await placeRaw(bomb, { 'Content-Encoding': 'gzip' }), 413, 'payload_too_large');
  });

  it('an unknown encoding is still 415 unsupported_media_type', async () => {
    expectRefused(await placeRaw(json, { 'Content-Encoding': 'compress' }), 415, 'unsupported_media_type');
  });
});

describe('text that is not well-formed Unicode', () => {
  // JSON text with an escaped unpaired surrogate in place of the marker (JSON.stringify would escape the backslash).
  const withEscape = (body: Record<string, unknown>, escape: string) => JSON.stringify(body).replace('@@', escape);
  const FIELDS: Array<[string, (v: string) => Record<string, unknown>]> = [
    ['reference', (v) => orderBody({ reference: v })],
    ['customer.name', (v) => orderBody({ customer: { name: v, phone: '+96550001234' } })],
    [
      'delivery_address.line1',
      (v) => orderBody({ delivery_address: { line1: v, area: 'Salmiya', location: { lat: 29.3349, lng: 48.0878 } } }),
    ],
    [
      'items[1].item_id',
      (v) =>
        orderBody({
          items: [
            { item_id: 'hummus', quantity: 1 },
            { item_id: v, quantity: 1 },
          ],
        }),
    ],
    ['promo_code', (v) => orderBody({ promo_code: v })],
  ];
  const ESCAPES = ['\\ud800', '\\uDFFF', 'ok \\ud83d', '\\ude00 then text', '\\ud800\\ud800'];

  it.each(FIELDS.flatMap(([field, build]) => ESCAPES.map((escape) => [field, escape, build] as const)))(
    '%s with %s: 400 validation_error naming the field, nothing stored',
    async (field, escape, build) => {
      const before = await settledHead(service);
      const res = await placeRaw(withEscape(build('x@@y'), escape));
      expectRefused(res, 400, 'validation_error', field);
      expect(res.body.error.message).toMatch(/well-formed Unicode/);
      expect(await stores.events.headPosition()).toBe(before);
    },
  );

  it('a surrogate pair (an emoji written as two escapes) is well-formed and accepted', async () => {
    const res = await placeRaw(withEscape(orderBody({ reference: 'tip @@' }), '\\ud83d\\ude00'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.reference).toBe('tip \u{1F600}');
  });

  it('an unpaired surrogate in a field name is refused too (naming the object that holds it)', async () => {
    const text = JSON.stringify(orderBody()).replace('"customer":{', '"customer":{"n\\udc00":1,');
    expectRefused(await placeRaw(text), 400, 'validation_error', 'customer');
  });

  it('the cancel reason and the promo-code check refuse it as well (one check for every body)', async () => {
    const placed = await placeRaw(JSON.stringify(orderBody()));
    expect(placed.status).toBe(201);
    const cancel = await api
      .post(`/v1/orders/${placed.body.data.id}/cancel`)
      .set(bearer(key))
      .set('Content-Type', 'application/json')
      .send('{"reason":"no \\ud800"}');
    expectRefused(cancel, 400, 'validation_error', 'reason');
    const promo = await api
      .post('/v1/promo-codes/validate')
      .set(bearer(key))
      .set('Content-Type', 'application/json')
      .send('{"code":"REEM5\\udfff","store_id":"kw-shawarma-reem","subtotal":5}');
    expectRefused(promo, 400, 'validation_error', 'code');
  });

  it('bytes that are not UTF-8 in a body are refused, not stored as U+FFFD', async () => {
    const before = await settledHead(service);
    const [head, tail] = JSON.stringify(orderBody({ reference: 'ref-@@' })).split('@@') as [string, string];
    const res = await placeRaw(
      Buffer.concat([Buffer.from(head), Buffer.from([0xed, 0xa0, 0x80, 0xff]), Buffer.from(tail)]),
    );
    expectRefused(res, 400, 'validation_error', 'body');
    expect(res.body.error.message).toMatch(/UTF-8/);
    expect(await stores.events.headPosition()).toBe(before);
  });

  it.each([
    ['an encoded unpaired surrogate', '/v1/orders?reference=a%ED%A0%80b', 'reference'],
    ['a byte that is not UTF-8', '/v1/orders?reference=%C3%28', 'reference'],
    ['a cut-off sequence', '/v1/orders?limit=5&reference=caf%C3', 'reference'],
    ['a bad byte in a search', '/v1/search?q=sh%FFwarma', 'q'],
    ['a bad byte in a parameter name', '/v1/stores?q%FF=a', 'query'],
  ])('a query with %s: 400 validation_error naming the parameter', async (_label, url, param) => {
    expectRefused(await api.get(url).set(bearer(key)), 400, 'validation_error', param);
  });

  it('a stray % and well-formed escapes in a query still read as before', async () => {
    expect((await api.get('/v1/stores?q=100%').set(bearer(key))).status).toBe(200);
    const cafe = await api.get('/v1/orders?reference=caf%C3%A9').set(bearer(key));
    expect(cafe.status).toBe(200);
  });
});

describe('numbers in query strings are JSON numbers, integers plain digits', () => {
  it.each([
    ['/v1/stores?limit=1e1', 'limit'],
    ['/v1/stores?limit=0x10', 'limit'],
    ['/v1/stores?limit=%2B5', 'limit'],
    ['/v1/stores?limit=5.0', 'limit'],
    ['/v1/stores?limit=%205', 'limit'],
    ['/v1/stores?limit=', 'limit'],
    ['/v1/stores?page=1e0', 'page'],
    ['/v1/stores?lat=0x10&lng=48', 'lat'],
    ['/v1/stores?lat=.5&lng=48', 'lat'],
    ['/v1/stores?lat=29.&lng=48', 'lat'],
    ['/v1/stores?lat=Infinity&lng=48', 'lat'],
    ['/v1/stores?lat=29&lng=-0x1', 'lng'],
    ['/v1/search?q=shawarma&limit=1e1', 'limit'],
    ['/v1/offers?limit=0b11', 'limit'],
    ['/v1/orders?limit=1e1', 'limit'],
    ['/v1/orders?limit=0x5', 'limit'],
    ['/v1/webhooks/deliveries?limit=1e1', 'limit'],
  ])('%s: 400 validation_error naming %s', async (url, param) => {
    expectRefused(await api.get(url).set(bearer(key)), 400, 'validation_error', param);
  });

  it.each([
    '/v1/stores?lat=29&lng=4.8e1',
    '/v1/stores?lat=-1e-05&lng=48',
    '/v1/stores/kw-shawarma-reem/delivery-quote?lat=29.3349&lng=4.80878E1',
    '/v1/stores?lat=-29.3349&lng=48&limit=05',
    '/v1/stores?lat=29&lng=48&page=2',
    '/v1/orders?limit=100',
    '/v1/webhooks/deliveries?limit=7',
  ])('%s is read', async (url) => {
    expect((await api.get(url).set(bearer(key))).status).toBe(200);
  });

  // JSON Schema ignores `pattern` on a number, so the document gives type and bounds only (docs/api.md says the rule).
  it('the OpenAPI document gives every numeric query parameter its bounds and no pattern', async () => {
    const doc = (await api.get('/v1/openapi.json')).body as {
      paths: Record<
        string,
        Record<string, { parameters?: Array<{ in: string; name: string; schema: Record<string, unknown> }> }>
      >;
    };
    const numeric = Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops).flatMap((op) => op.parameters ?? []))
      .filter((p) => p.in === 'query' && ['integer', 'number'].includes(p.schema.type as string));
    expect(numeric.length).toBeGreaterThan(5);
    for (const p of numeric) {
      expect(p.schema.pattern, `${p.name}`).toBeUndefined();
      expect([typeof p.schema.minimum, typeof p.schema.maximum], `${p.name}`).toEqual(['number', 'number']);
    }
  });
});

describe('tips', () => {
  const place = (tip: number) => placeRaw(JSON.stringify(orderBody({ tip })));

  // Above the document's maximum (the largest currency's) is a 400; above the store's currency's
  // maximum only, a 422: the store decides the currency (docs/api.md, "400 or 422").
  it.each([
    [999_999.999, 400, 'validation_error'],
    [MAX_TIP.KWD + 0.001, 422, 'invalid_amount'],
    [1000, 422, 'invalid_amount'],
  ] as const)('a tip of %d KWD is %d %s on tip, naming the maximum', async (tip, status, code) => {
    const before = await settledHead(service);
    const res = await place(tip);
    expectRefused(res, status, code, 'tip');
    expect(res.body.error.message).toContain(`${MAX_TIP.KWD} KWD`);
    expect(await stores.events.headPosition()).toBe(before);
  });

  it('a tip of exactly the maximum is accepted', async () => {
    const res = await place(MAX_TIP.KWD);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.pricing.tip).toBe(MAX_TIP.KWD);
  });

  it("the maximum is the store's currency's (AED in Dubai)", async () => {
    const body = (tip: number) =>
      JSON.stringify(
        orderBody({
          store_id: 'dxb-shawarma-station',
          fulfilment: 'pickup',
          delivery_address: undefined,
          items: [{ item_id: 'saj-shawarma', quantity: 3 }],
          customer: { name: 'A', phone: '+971501234567' },
          tip,
        }),
      );
    expect((await placeRaw(body(MAX_TIP.AED))).status).toBe(201);
    const over = await placeRaw(body(MAX_TIP.AED + 0.01));
    expectRefused(over, 422, 'invalid_amount', 'tip');
    expect(over.body.error.message).toContain(`${MAX_TIP.AED} AED`);
  });

  it('the OpenAPI document bounds the tip and lists each maximum', async () => {
    const doc = (await api.get('/v1/openapi.json')).body as {
      components: {
        schemas: Record<string, { properties: Record<string, { maximum?: number; description?: string }> }>;
      };
    };
    const tip = doc.components.schemas.PlaceOrderRequest!.properties.tip!;
    expect(tip.maximum).toBe(Math.max(...Object.values(MAX_TIP)));
    for (const [currency, max] of Object.entries(MAX_TIP)) expect(tip.description).toContain(`${max} ${currency}`);
  });
});

describe("a caller's X-Request-Id", () => {
  it("is kept apart: the service's own id in X-Request-Id, the caller's in X-Client-Request-Id", async () => {
    const res = await api.get('/v1/ping').set(bearer(key)).set('X-Request-Id', 'partner-trace-12345');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.headers['x-client-request-id']).toBe('partner-trace-12345');
    const unsafe = await api.get('/v1/ping').set(bearer(key)).set('X-Request-Id', 'bad id <x>');
    expect(unsafe.headers['x-request-id']).toMatch(/^req_/);
    expect(unsafe.headers['x-client-request-id']).toBeUndefined();
    const none = await api.get('/v1/ping').set(bearer(key));
    expect(none.headers['x-client-request-id']).toBeUndefined();
  });

  it("two callers sending the same id get different request ids, and an error body carries the service's", async () => {
    const a = await api.get('/v1/orders/ord_nope').set(bearer(key)).set('X-Request-Id', 'req_0000000000000000');
    const b = await api.get('/v1/orders/ord_nope').set(bearer(key)).set('X-Request-Id', 'req_0000000000000000');
    expect(a.headers['x-request-id']).not.toBe('req_0000000000000000');
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    expect(a.body.error.request_id).toBe(a.headers['x-request-id']);
  });

  it('is never the request or correlation id of the events a request causes; it is their client_request_id', async () => {
    const idempotencyKey = newKey();
    const res = await api
      .post('/v1/orders')
      .set(bearer(key))
      .set('Idempotency-Key', idempotencyKey)
      .set('X-Request-Id', 'someone-elses-request')
      .send(orderBody());
    expect(res.status).toBe(201);
    const ours = res.headers['x-request-id']!;
    expect(ours).toMatch(/^req_/);
    const [placed] = await stores.events.readStream(`order-${res.body.data.id}`);
    expect(placed!.metadata).toMatchObject({
      request_id: ours,
      correlation_id: ours,
      causation_id: ours,
      client_request_id: 'someone-elses-request',
    });
    const [claim] = await stores.events.readStream(idempotencyStream('sandbox', partnerId, idempotencyKey));
    expect(claim!.metadata).toMatchObject({
      request_id: ours,
      correlation_id: ours,
      client_request_id: 'someone-elses-request',
    });

    const cancel = await api
      .post(`/v1/orders/${res.body.data.id}/cancel`)
      .set(bearer(key))
      .set('X-Request-Id', 'cancel-trace-1');
    expect(cancel.status).toBe(200);
    const events = await stores.events.readStream(`order-${res.body.data.id}`);
    expect(events.at(-1)!.metadata).toMatchObject({
      request_id: cancel.headers['x-request-id'],
      client_request_id: 'cancel-trace-1',
    });

    const plain = await api.post('/v1/orders').set(bearer(key)).set('Idempotency-Key', newKey()).send(orderBody());
    const [plainPlaced] = await stores.events.readStream(`order-${plain.body.data.id}`);
    expect(plainPlaced!.metadata).not.toHaveProperty('client_request_id');
  });

  it('is in the access log line as client_request_id, beside our request_id', async () => {
    const res = await api.get('/v1/ping').set(bearer(key)).set('X-Request-Id', 'log-trace-000001');
    const line = lines.find((l) => l.msg === 'request' && l.request_id === res.headers['x-request-id']);
    expect(line).toMatchObject({ request_id: res.headers['x-request-id'], client_request_id: 'log-trace-000001' });
    expect(lines.some((l) => l.request_id === 'log-trace-000001')).toBe(false);
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'superagent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, orderBody } from '../support/orders.js';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { settledHead } from '../support/webhook-events.js';

// Oversized, deeply nested, huge, wrongly typed and injection-laden requests: a clean 4xx in the
// envelope every time, the service keeps answering, and nothing the caller sent reaches a header.

let t: TestService;
let p: TestPartner;
let server: http.Server;
let port: number;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner({ rateLimitPerMin: 100_000 });
  server = http.createServer(t.service.app.express);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

const LIMIT = 102_400; // BODY_LIMIT_BYTES default
// The bytes as they are: superagent would serialise a Buffer sent as application/json into JSON.
const postRaw = (text: string | Buffer, contentType = 'application/json') =>
  t.http
    .post('/v1/orders')
    .set(bearer(p.sandbox))
    .set('Idempotency-Key', newKey())
    .set('Content-Type', contentType)
    .serialize((b: unknown) => b as string)
    .send(text);

function expectRefused(res: Response, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
}

async function expectStillServing(): Promise<void> {
  expect((await t.http.get('/v1/ping').set(bearer(p.sandbox))).status).toBe(200);
}

/** A raw request over its own connection (for what supertest will not send: chunked bodies, no type). */
function raw(options: {
  headers: Record<string, string>;
  chunks: Buffer[];
}): Promise<{ status: number; body: { error?: { code: string } } }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/orders',
        agent: false,
        headers: { Authorization: `Bearer ${p.sandbox}`, 'Idempotency-Key': newKey(), ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    // The server may answer 413 and close before it has read everything: that is its right.
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
    );
    for (const c of options.chunks) req.write(c);
    req.end();
  });
}

describe('oversized bodies', () => {
  it.each([LIMIT + 1, 10 * LIMIT])(
    'a %i-byte JSON body is 413 payload_too_large, with nothing written',
    async (size) => {
      const before = await settledHead(t.service);
      const body = JSON.stringify(orderBody({ reference: 'r', padding: 'x'.repeat(size) })).slice(0, size);
      expectRefused(await postRaw(body.padEnd(size, ' ')), 413, 'payload_too_large');
      expect(await t.stores.events.headPosition()).toBe(before);
      await expectStillServing();
    },
  );

  it('a chunked body (no Content-Length) over the limit is 413 too', async () => {
    const chunk = Buffer.from(`{"reference":"${'y'.repeat(16 * 1024)}`);
    const res = await raw({
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      chunks: Array(10).fill(chunk),
    });
    expect(res.status).toBe(413);
    expect(res.body.error?.code).toBe('payload_too_large');
    await expectStillServing();
  });
});

describe('deeply nested JSON', () => {
  it.each([
    ['arrays, 10,000 levels', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['arrays, 50,000 levels (at the size limit)', '['.repeat(50_000) + ']'.repeat(50_000)],
    ['objects, 7,000 levels', '{"a":'.repeat(7_000) + '1' + '}'.repeat(7_000)],
    [
      'a valid body with a 10,000-level value in a field',
      JSON.stringify(orderBody({ reference: 'x' })).replace('"x"', '['.repeat(10_000) + ']'.repeat(10_000)),
    ],
    [
      'a valid body with 5,000-level objects in delivery_address',
      JSON.stringify(orderBody({ delivery_address: 'x' })).replace(
        '"x"',
        '{"line1":'.repeat(5_000) + '"a"' + '}'.repeat(5_000),
      ),
    ],
  ])('%s: a clean 400, no crash', async (_label, text) => {
    expect(text.length).toBeLessThanOrEqual(LIMIT);
    const res = await postRaw(text);
    expectRefused(res, 400, 'validation_error');
    expect(JSON.stringify(res.body).length).toBeLessThan(2_000);
    await expectStillServing();
  });
});

describe('huge arrays', () => {
  it.each([
    ['20,000 items', () => orderBody({ items: Array(20_000).fill(0) })],
    ['5,000 valid-looking lines', () => orderBody({ items: Array(5_000).fill({ item_id: 'hummus', quantity: 1 }) })],
    [
      '2,000 modifier ids on a line',
      () => orderBody({ items: [{ item_id: 'hummus', quantity: 1, modifier_ids: Array(2_000).fill('size-large') }] }),
    ],
    [
      '50 lines of 50 unknown modifier ids each',
      () =>
        orderBody({
          items: Array(50).fill({
            item_id: 'chicken-shawarma-wrap',
            quantity: 1,
            modifier_ids: Array(50).fill('nope'),
          }),
        }),
    ],
    [
      'a 10,000-key object',
      () => ({ ...orderBody(), ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])) }),
    ],
  ])('%s: a clean 4xx with a bounded answer', async (_label, build) => {
    const text = JSON.stringify(build());
    const started = performance.now();
    const res = await postRaw(text);
    expect([400, 413]).toContain(res.status);
    expect(res.body.error.code).toMatch(/^(validation_error|payload_too_large)$/);
    // No amplification: the answer stays small whatever the request held.
    expect(JSON.stringify(res.body).length).toBeLessThan(Math.max(4_000, text.length));
    // A bound that catches work growing with the input's square (minutes), not a slow machine.
    expect(performance.now() - started).toBeLessThan(10_000);
    await expectStillServing();
  });
});

describe('wrong content types', () => {
  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=xyz',
    'application/xml',
    'text/json',
    'application/vnd.api+json',
    'application/json; charset=latin1',
    'application/json; charset=koi8-r',
    'application/json; charset=utf-16',
    'application/json; charset=utf-16le',
    'application/json; charset=utf8',
  ])('%s is 415 unsupported_media_type', async (type) => {
    const before = await settledHead(t.service);
    expectRefused(await postRaw(JSON.stringify(orderBody()), type), 415, 'unsupported_media_type');
    expect(await t.stores.events.headPosition()).toBe(before);
  });

  it('a body with no Content-Type at all is 415', async () => {
    const res = await raw({ headers: { 'Content-Length': '2' }, chunks: [Buffer.from('{}')] });
    expect(res.status).toBe(415);
    expect(res.body.error?.code).toBe('unsupported_media_type');
  });

  it('a UTF-16 body that says so is 415: JSON bodies are UTF-8', async () => {
    const before = await settledHead(t.service);
    const utf16 = Buffer.from(JSON.stringify(orderBody()), 'utf16le');
    expectRefused(await postRaw(utf16, 'application/json; charset=utf-16le'), 415, 'unsupported_media_type');
    expect(await t.stores.events.headPosition()).toBe(before);
  });

  it.each(['utf-8', 'UTF-8'])(
    'charset=%s is UTF-8: a valid body is taken, invalid bytes are a 400',
    async (charset) => {
      const type = `application/json; charset=${charset}`;
      expect((await postRaw(JSON.stringify(orderBody()), type)).status).toBe(201);
      const bad = Buffer.concat([Buffer.from('{"reference":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
      expectRefused(await postRaw(bad, type), 400, 'validation_error');
    },
  );

  it('invalid UTF-8 in a JSON body is a clean 400', async () => {
    const bytes = Buffer.concat([Buffer.from('{"reference":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    const res = await postRaw(bytes);
    expectRefused(res, 400, 'validation_error');
    expect(res.body.error.message).toMatch(/UTF-8/);
  });
});

describe('header injection through echoed fields', () => {
  const INJECTIONS = [
    'ref\r\nX-Injected: yes',
    'ref\nSet-Cookie: a=b',
    'ref\r',
    '\nref',
    'ref\u0000',
    'ref\u2029\r\n',
    'ref\u0085x',
    'ref\u202ex',
  ];
  const FIELDS: Array<[string, (v: string) => Record<string, unknown>]> = [
    ['reference', (v) => ({ reference: v })],
    ['customer.name', (v) => ({ customer: { name: v, phone: '+96550001234' } })],
    [
      'delivery_address.line1',
      (v) => ({ delivery_address: { line1: v, area: 'Salmiya', location: { lat: 29.3349, lng: 48.0878 } } }),
    ],
    [
      'delivery_address.area',
      (v) => ({ delivery_address: { line1: 'Block 4', area: v, location: { lat: 29.3349, lng: 48.0878 } } }),
    ],
    [
      'delivery_address.floor',
      (v) => ({
        delivery_address: { line1: 'Block 4', area: 'Salmiya', floor: v, location: { lat: 29.3349, lng: 48.0878 } },
      }),
    ],
  ];

  it.each(FIELDS.flatMap(([field, body]) => INJECTIONS.map((v) => [field, v, body] as const)))(
    '%s = %j is refused with 400 naming the field',
    async (field, value, body) => {
      const before = await settledHead(t.service);
      const res = await t.http
        .post('/v1/orders')
        .set(bearer(p.sandbox))
        .set('Idempotency-Key', newKey())
        .send(orderBody(body(value)));
      expectRefused(res, 400, 'validation_error');
      expect(res.body.error.param).toBe(field);
      expect(Object.keys(res.headers)).not.toContain('x-injected');
      expect(await t.stores.events.headPosition()).toBe(before);
    },
  );

  it('a cancel reason with CR/LF is refused with 400', async () => {
    const placed = await t.http
      .post('/v1/orders')
      .set(bearer(p.sandbox))
      .set('Idempotency-Key', newKey())
      .send(orderBody());
    const res = await t.http
      .post(`/v1/orders/${placed.body.data.id}/cancel`)
      .set(bearer(p.sandbox))
      .send({ reason: 'no\r\nX-Injected: yes' });
    expectRefused(res, 400, 'validation_error');
    expect(res.body.error.param).toBe('reason');
  });

  it('nothing user-supplied is echoed into a response header, on success, replay, conflict or refusal', async () => {
    const marker = 'mkr7Q';
    const idem = `${marker}-idempotency-key`;
    const body = orderBody({
      reference: `${marker}-reference`,
      customer: { name: `${marker} Name`, phone: '+96550001234' },
      delivery_address: {
        line1: `${marker} line`,
        area: `${marker} area`,
        floor: `${marker}f`,
        apartment: `${marker}a`,
        location: { lat: 29.3349, lng: 48.0878 },
      },
    });
    // An unsafe X-Request-Id is replaced, not echoed (a safe one is echoed by design, see docs/api.md).
    const send = (b: unknown, key = idem) =>
      t.http
        .post('/v1/orders')
        .set(bearer(p.sandbox))
        .set('Idempotency-Key', key)
        .set('X-Request-Id', `${marker} <script>`)
        .send(b as object);
    const answers = [
      await send(body),
      await send(body),
      await send({ ...body, reference: `${marker}-other` }),
      await send({ ...body, bogus: marker }, `${marker}-second-key`),
      await t.http
        .get(`/v1/orders?reference=${marker}-reference`)
        .set(bearer(p.sandbox))
        .set('X-Request-Id', `${marker} x`),
      await t.http.get(`/v1/${marker}`).set(bearer(p.sandbox)),
    ];
    expect(answers.map((r) => r.status)).toEqual([201, 200, 409, 400, 200, 404]);
    for (const res of answers) {
      for (const [name, value] of Object.entries(res.headers)) {
        expect(String(value), `${name} echoes what the caller sent`).not.toContain(marker);
      }
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Response } from 'superagent';
import { newKey, orderBody } from '../support/orders.js';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { settledHead } from '../support/webhook-events.js';

// Regressions (issue "Hardening"): request bodies the service must refuse, or read in one defined way.
// Oversized and deeply nested bodies, invalid UTF-8 and compressed bombs have their own suites
// (hostile-requests.test.ts, hostile-input.test.ts); docs/testing.md lists where each case lives.

let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner({ rateLimitPerMin: 100_000 });
});
afterAll(() => t.close());

const place = (text: string | Buffer) =>
  t.http
    .post('/v1/orders')
    .set(bearer(p.sandbox))
    .set('Idempotency-Key', newKey())
    .set('Content-Type', 'application/json')
    .send(text);

async function expectRefusedUnchanged(
  send: () => PromiseLike<Response>,
  status: number,
  code: string,
): Promise<Response> {
  const before = await settledHead(t.service);
  const res = await send();
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(await t.stores.events.headPosition(), 'a refused request appended events').toBe(before);
  return res;
}

describe('an order with 100,000 lines', () => {
  it('is 413 payload_too_large, nothing stored, and the service keeps answering', async () => {
    const text = JSON.stringify(orderBody({ items: Array(100_000).fill({ item_id: 'hummus', quantity: 1 }) }));
    await expectRefusedUnchanged(() => place(text), 413, 'payload_too_large');
    expect((await t.http.get('/v1/ping').set(bearer(p.sandbox))).status).toBe(200);
  });
});

describe('__proto__ and constructor as keys', () => {
  // JSON.stringify cannot write a "__proto__" own key from an object literal: spliced into the text.
  const withKey = (at: string, key: string, value = '{"polluted":true}') =>
    JSON.stringify(orderBody()).replace(at, `${at}"${key}":${value},`);
  it.each([
    ['__proto__ at the top', withKey('{', '__proto__')],
    ['constructor at the top', withKey('{', 'constructor', '{"prototype":{"polluted":true}}')],
    ['prototype at the top', withKey('{', 'prototype')],
    ['__proto__ in customer', withKey('"customer":{', '__proto__')],
    [
      'constructor in delivery_address',
      withKey('"delivery_address":{', 'constructor', '{"prototype":{"polluted":true}}'),
    ],
    ['__proto__ in an order line', withKey('"items":[{', '__proto__')],
    ['__proto__ in the location', withKey('"location":{', '__proto__', '{"lat":0}')],
  ])('%s: 400 validation_error, nothing stored, no prototype touched', async (_label, text) => {
    expect(text).toMatch(/"(__proto__|constructor|prototype)":/);
    await expectRefusedUnchanged(() => place(text), 400, 'validation_error');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as unknown as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('on the cancel and webhook bodies too', async () => {
    const placed = await place(JSON.stringify(orderBody()));
    expect(placed.status).toBe(201);
    await expectRefusedUnchanged(
      () =>
        t.http
          .post(`/v1/orders/${placed.body.data.id}/cancel`)
          .set(bearer(p.sandbox))
          .set('Content-Type', 'application/json')
          .send('{"reason":"changed mind","__proto__":{"polluted":true}}'),
      400,
      'validation_error',
    );
    const endpoint = await t.http
      .put('/v1/webhooks/endpoint')
      .set(bearer(p.sandbox))
      .set('Content-Type', 'application/json')
      .send('{"url":"https://hooks.example.com/","constructor":{"prototype":{"polluted":true}}}');
    expect(endpoint.status).toBe(400);
    expect(endpoint.body.error.code).toBe('validation_error');
  });
});

describe('NUL, line separators, bidirectional overrides and BOM in text', () => {
  const CHARACTERS: Array<[string, string]> = [
    ['NUL', '\u0000'],
    ['LINE SEPARATOR', '\u2028'],
    ['RIGHT-TO-LEFT OVERRIDE', '\u202e'],
    ['RIGHT-TO-LEFT ISOLATE', '\u2067'],
    ['BOM (ZERO WIDTH NO-BREAK SPACE)', '\ufeff'],
    ['ZERO WIDTH SPACE', '\u200b'],
  ];
  const FIELDS: Array<[string, (v: string) => Record<string, unknown>]> = [
    ['reference', (v) => orderBody({ reference: `ref${v}x` })],
    ['customer.name', (v) => orderBody({ customer: { name: `Fatima${v}`, phone: '+96550001234' } })],
    [
      'delivery_address.line1',
      (v) =>
        orderBody({
          delivery_address: { line1: `${v}Block 4`, area: 'Salmiya', location: { lat: 29.3349, lng: 48.0878 } },
        }),
    ],
  ];
  it.each(CHARACTERS.flatMap(([name, c]) => FIELDS.map(([field, build]) => [name, field, c, build] as const)))(
    '%s in %s: 400 validation_error naming the field, nothing stored',
    async (_name, field, c, build) => {
      const res = await expectRefusedUnchanged(() => place(JSON.stringify(build(c))), 400, 'validation_error');
      expect(res.body.error.param).toBe(field);
    },
  );

  it('the format characters names are spelled with (joiners, direction marks, soft hyphen) are kept as sent', async () => {
    const names = [
      'علی\u200cرضا', // ZERO WIDTH NON-JOINER: Persian spelling
      'Ali \u{1F468}\u200d\u{1F469}\u200d\u{1F467}', // ZERO WIDTH JOINER: one emoji
      'فاطمة\u200f (Fatima)', // RIGHT-TO-LEFT MARK between directions
      'Sara\u061c', // ARABIC LETTER MARK
      'Kon\u00adstantin', // SOFT HYPHEN
      'Ewan \u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}', // Scotland's flag: tag characters
    ];
    for (const name of names) {
      const res = await place(
        JSON.stringify(orderBody({ reference: name, customer: { name, phone: '+96550001234' } })),
      );
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
      expect([res.body.data.reference, res.body.data.customer.name]).toEqual([name, name]);
    }
  });

  it('text made only of invisible characters is refused: a name or reference needs a visible one', async () => {
    const WHOLE: Array<[string, (v: string) => Record<string, unknown>]> = [
      ['reference', (v) => orderBody({ reference: v })],
      ['customer.name', (v) => orderBody({ customer: { name: v, phone: '+96550001234' } })],
      [
        'delivery_address.line1',
        (v) => orderBody({ delivery_address: { line1: v, area: 'Salmiya', location: { lat: 29.3349, lng: 48.0878 } } }),
      ],
    ];
    for (const invisible of ['\u200c', ' \u200d ', '\u200f\u00ad']) {
      for (const [field, build] of WHOLE) {
        const res = await expectRefusedUnchanged(
          () => place(JSON.stringify(build(invisible))),
          400,
          'validation_error',
        );
        expect([res.body.error.param, res.body.error.message], JSON.stringify(invisible)).toEqual([
          field,
          `${field} must contain a visible character.`,
        ]);
      }
    }
  });

  it('the list filter by reference takes what the character rule refuses: orders placed under a wider rule are found', async () => {
    const res = await t.http.get(`/v1/orders?reference=${encodeURIComponent('PO-17\u200b')}`).set(bearer(p.sandbox));
    expect([res.status, res.body.data]).toEqual([200, []]);
  });

  it('a BOM before the JSON text is refused, not read past', async () => {
    const res = await expectRefusedUnchanged(
      () => place(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(orderBody()))])),
      400,
      'validation_error',
    );
    expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  });
});

describe('duplicate keys in a JSON object', () => {
  // JSON.parse keeps the last value of a repeated key; that value is the one validated and stored.
  const body = JSON.stringify(orderBody({ reference: 'FIRST' }));

  it('the last value wins and is what the order holds', async () => {
    const res = await place(body.replace('"reference":"FIRST"', '"reference":"FIRST","reference":"LAST"'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.reference).toBe('LAST');
  });

  it('the last value is validated: a valid first value does not let an invalid last one through', async () => {
    const text = body.replace('"quantity":1', '"quantity":1,"quantity":-5');
    expect(text).not.toBe(body);
    const res = await expectRefusedUnchanged(() => place(text), 400, 'validation_error');
    expect(res.body.error.param).toMatch(/^items\[\d\]\.quantity$/);
    const payment = await expectRefusedUnchanged(
      () => place(body.replace('"payment_method":"cash"', '"payment_method":"cash","payment_method":"bitcoin"')),
      400,
      'validation_error',
    );
    expect(payment.body.error.param).toBe('payment_method');
  });

  it('an invalid first value is replaced by a valid last one, which is accepted', async () => {
    const res = await place(
      body.replace('"reference":"FIRST"', '"reference":"bad\\r\\nX-Injected: 1","reference":"GOOD"'),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.reference).toBe('GOOD');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';

let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService({ env: { BODY_LIMIT_BYTES: '2048' } });
  p = await t.partner();
});
afterAll(() => t.close());

function expectEnvelope(
  res: { headers: Record<string, string>; body: { error: { code: string; message: string; request_id: string } } },
  code: string,
) {
  expect(res.headers['x-request-id']).toMatch(/\S{8,}/);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.message.length).toBeGreaterThan(5);
  expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+/);
}

describe('error envelope and request ids', () => {
  it('when a route does not exist, then 404 not_found', async () => {
    const res = await t.http.get('/v1/does-not-exist').set(bearer(p.live));
    expect(res.status).toBe(404);
    expectEnvelope(res, 'not_found');
  });

  it('when the method is wrong, then 405 method_not_allowed with Allow', async () => {
    const res = await t.http.delete('/v1/ping').set(bearer(p.live));
    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expectEnvelope(res, 'method_not_allowed');
  });

  it('when the JSON is malformed, then 400 validation_error', async () => {
    const res = await t.http
      .post('/v1/promo-codes/validate')
      .set(bearer(p.live))
      .set('Content-Type', 'application/json')
      .send('{"a":');
    expect(res.status).toBe(400);
    expectEnvelope(res, 'validation_error');
  });

  it('when the body is over the limit, then 413 payload_too_large', async () => {
    const res = await t.http
      .post('/v1/promo-codes/validate')
      .set(bearer(p.live))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ a: 'x'.repeat(4000) }));
    expect(res.status).toBe(413);
    expectEnvelope(res, 'payload_too_large');
  });

  it('when the content type is not JSON, then 415 unsupported_media_type', async () => {
    const res = await t.http
      .post('/v1/promo-codes/validate')
      .set(bearer(p.live))
      .set('Content-Type', 'text/plain')
      .send('hello');
    expect(res.status).toBe(415);
    expectEnvelope(res, 'unsupported_media_type');
  });

  it.each(['utf8', 'latin1', 'utf-16le'])(
    'when the JSON comes with charset=%s, then 415 naming it and the fix',
    async (charset) => {
      const res = await t.http
        .post('/v1/promo-codes/validate')
        .set(bearer(p.live))
        .set('Content-Type', `application/json; charset=${charset}`)
        .send(Buffer.from('{}'));
      expect(res.status).toBe(415);
      expect(res.body.error.message).toBe(
        `charset=${charset} is not accepted: send the JSON in UTF-8 with charset=utf-8, or no charset.`,
      );
    },
  );

  it('when the caller sends a safe X-Request-Id, then it is echoed as X-Client-Request-Id beside our own; an unsafe one is dropped', async () => {
    const kept = await t.http.get('/v1/ping').set(bearer(p.live)).set('X-Request-Id', 'partner-trace-12345');
    expect(kept.headers['x-request-id']).toMatch(/^req_/);
    expect(kept.headers['x-client-request-id']).toBe('partner-trace-12345');
    const replaced = await t.http.get('/v1/ping').set(bearer(p.live)).set('X-Request-Id', 'bad id\twith spaces');
    expect(replaced.headers['x-request-id']).toMatch(/^req_/);
    expect(replaced.headers['x-client-request-id']).toBeUndefined();
  });

  it('when the request succeeds, then it carries X-Request-Id and the { data } envelope', async () => {
    const res = await t.http.get('/v1/ping').set(bearer(p.live));
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(Object.keys(res.body)).toEqual(['data']);
  });

  it('when health endpoints are called without a key, then they answer', async () => {
    expect((await t.http.get('/healthz')).status).toBe(200);
    const ready = await t.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.data.checks.partners).toBe('ok');
  });
});

describe('OPTIONS', () => {
  it('when OPTIONS is sent, then 405 method_not_allowed in the envelope (no CORS preflight here)', async () => {
    const res = await t.http.get('/v1/ping').set(bearer(p.live));
    expect(res.status).toBe(200);
    const options = await (await import('supertest')).default(t.service.app.express).options('/v1/ping');
    expect(options.status).toBe(405);
    expect(options.body.error.code).toBe('method_not_allowed');
    expect(options.headers.allow).toContain('GET');
  });
});

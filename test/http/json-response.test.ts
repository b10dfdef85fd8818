import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';

// JSON answers (envelopes and errors) carry the same headers Express's res.json gives them:
// the type with its charset and the length in bytes; HEAD gets the headers only; a conditional
// GET is still judged by Express.

let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner();
});
afterAll(() => t.close());

const raw = () => supertest(t.service.app.express);

describe('JSON answers', () => {
  it('a success and an error with non-ASCII text: type with charset, length in bytes', async () => {
    for (const res of [
      await raw().get('/v1/ping').set(bearer(p.live)),
      await raw().get('/v1/stores/caf%C3%A9').set(bearer(p.live)),
    ]) {
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      expect(res.headers.etag).toBeUndefined();
    }
    const error = await raw().get('/v1/stores/caf%C3%A9').set(bearer(p.live));
    expect(error.text).toContain('café');
    expect(Buffer.byteLength(error.text)).toBe(error.text.length + 1);
  });

  it("HEAD has the GET answer's headers and no body", async () => {
    const get = await raw().get('/healthz');
    const head = await raw().head('/healthz');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.text ?? '').toBe('');
  });

  it('If-None-Match: * on a GET is answered 304 as Express does; a stale If-Modified-Since is not', async () => {
    const cond = await raw().get('/healthz').set('If-None-Match', '*');
    expect(cond.status).toBe(304);
    const since = await raw().get('/healthz').set('If-Modified-Since', new Date().toUTCString());
    expect(since.status).toBe(200);
    expect(since.body).toEqual({ data: { status: 'ok' } });
  });
});

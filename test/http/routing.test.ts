import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';

// How paths are matched to routes: exact and case-sensitive, one optional trailing slash, path
// parameters percent-decoded, HEAD served by GET routes, anything else 404 or 405 with Allow.

let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner();
});
afterAll(() => t.close());

const raw = () => supertest(t.service.app.express);

describe('routing', () => {
  it.each([
    ['/v1/ping', 200],
    ['/v1/ping/', 200],
    ['/v1/ping?x=1', 200],
    ['/v1/ping//', 404],
    ['//v1/ping', 404],
    ['/V1/ping', 404],
    ['/v1/PING', 404],
    ['/v1/p%69ng', 404],
    ['/v1/ping;x', 404],
    ['/v1/ping/x', 404],
  ])('GET %s answers %i', async (path, status) => {
    const res = await t.http.get(path).set(bearer(p.live));
    expect(res.status).toBe(status);
    if (status === 404) expect(res.body.error.code).toBe('not_found');
  });

  it('path parameters are percent-decoded and may not span segments', async () => {
    const decoded = await t.http.get('/v1/stores/caf%C3%A9').set(bearer(p.live));
    expect(decoded.status).toBe(404);
    expect(decoded.body.error).toMatchObject({ code: 'store_not_found', message: 'No store with id café.' });
    const slash = await t.http.get('/v1/stores/a%2Fb').set(bearer(p.live));
    expect(slash.body.error.message).toBe('No store with id a/b.');
    expect((await t.http.get('/v1/stores/kw-shawarma-reem/').set(bearer(p.live))).status).toBe(200);
  });

  it('a parameter that is not valid percent-encoding is a 400, not a 500', async () => {
    const res = await t.http.get('/v1/stores/%E0').set(bearer(p.live));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'path' });
  });

  it('HEAD is answered by the GET route, with its headers and no body', async () => {
    const res = await raw().head('/v1/ping').set(bearer(p.live));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['ratelimit-limit']).toBeDefined();
    expect(res.text ?? '').toBe('');
  });

  it('a path that exists under other methods is 405 with Allow, whatever the key', async () => {
    for (const [method, path, allow] of [
      ['post', '/v1/ping', 'GET, HEAD'],
      ['delete', '/v1/orders/abc', 'GET, HEAD'],
      ['get', '/internal/orders/x/y', 'POST'],
      ['patch', '/v1/stores/x/', 'GET, HEAD'],
    ] as const) {
      const res = await raw()[method](path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(res.body.error.code).toBe('method_not_allowed');
    }
  });
});

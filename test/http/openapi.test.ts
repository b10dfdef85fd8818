import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { bearer, startTestService, type TestService } from '../support/service.js';

const ADMIN_TOKEN = 'openapi-test-admin-token-0123456789';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ env: { ADMIN_TOKEN } });
});
afterAll(() => t.close());

describe('OpenAPI document', () => {
  it('when fetched without a key, then it is a valid OpenAPI 3.1 document', async () => {
    const res = await t.http.get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('when generated, then every route of the app is in one of the two documents with an operation id and error responses', () => {
    type Doc = { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };
    const partner = t.service.app.openApiDocument() as Doc;
    const operator = t.service.app.internalOpenApiDocument() as Doc;
    for (const route of t.service.app.routes.filter((r) => !r.undocumented)) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const internal = /^\/(internal\/|checkout\/|metrics$)/.test(path);
      const op = (internal ? operator : partner).paths[path]?.[route.method];
      expect((internal ? partner : operator).paths[path]?.[route.method], `${route.method} ${path}`).toBeUndefined();
      expect(op, `${route.method} ${path}`).toBeDefined();
      expect(op!.operationId).toBe(route.operationId);
      expect(Object.keys(op!.responses)).toContain('500');
      if ((route.auth ?? 'key') === 'key')
        expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(['401', '429']));
    }
  });

  it('when generated, then every route that uses a store lists 503 with Retry-After, and the routes that use none (liveness, the document) do not', () => {
    type Op = { responses: Record<string, { headers?: Record<string, unknown> }> };
    const doc = t.service.app.openApiDocument() as { paths: Record<string, Record<string, Op>> };
    const without: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const unavailable = op.responses['503'];
        if (!unavailable) without.push(`${method} ${path}`);
        else expect(Object.keys(unavailable.headers ?? {}), `${method} ${path}`).toContain('Retry-After');
        expect(Object.keys(op.responses['429']?.headers ?? { 'Retry-After': 1 }), `${method} ${path}`).toContain(
          'Retry-After',
        );
        // Transport-level answers of the HTTP server (docs/api.md, Requests refused before routing).
        expect(Object.keys(op.responses), `${method} ${path}`).not.toEqual(expect.arrayContaining(['408']));
        expect(Object.keys(op.responses), `${method} ${path}`).not.toEqual(expect.arrayContaining(['431']));
      }
    }
    expect(without.sort()).toEqual(['get /docs', 'get /docs/assets/{file}', 'get /healthz', 'get /v1/openapi.json']);
  });

  it('when an operation is sent a query parameter it does not take, then it answers what its document lists: 400 where refused, 200 where ignored', async () => {
    type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const partner = t.service.app.openApiDocument() as Doc;
    const operator = t.service.app.internalOpenApiDocument() as Doc;
    const key = (await t.partner()).sandbox;
    const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    const cases = [
      { path: '/v1/webhooks/endpoint', doc: partner, headers: bearer(key), status: 400 },
      { path: '/internal/projections', doc: operator, headers: admin, status: 400 },
      // The spec lists ping's answers without a 400; tools fetch the document and the metrics.
      { path: '/v1/ping', doc: partner, headers: bearer(key), status: 200 },
      { path: '/internal/openapi.json', doc: operator, headers: admin, status: 200 },
      { path: '/metrics', doc: operator, headers: admin, status: 200 },
      { path: '/healthz', doc: partner, headers: {}, status: 200 },
    ];
    for (const { path, doc, headers, status } of cases) {
      const res = await t.http.get(`${path}?unknown_param=1`).set(headers);
      expect(res.status, path).toBe(status);
      const listed = Object.keys(doc.paths[path]!.get!.responses);
      if (status === 400) expect(listed, path).toContain('400');
      else expect(listed, path).not.toContain('400');
    }
  });

  it('when /docs is opened, then it is the reference page, loading its scripts from this service only (CSP)', async () => {
    const res = await t.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const scripts = [...res.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(['/docs/assets/api-reference.js', '/docs/assets/init.js']);
    // No inline script: the CSP allows none.
    expect(res.text).not.toMatch(/<script>/);
    for (const src of scripts) {
      const js = await t.http.get(src);
      expect(js.status, src).toBe(200);
      expect(js.headers['content-type']).toMatch(/text\/javascript/);
    }
    const bundle = await t.http.get('/docs/assets/api-reference.js');
    expect(bundle.text).toContain('createApiReference');
  });

  it('when a script of the reference page is fetched again, then its ETag answers 304; a name it does not load is 404', async () => {
    for (const src of ['/docs/assets/api-reference.js', '/docs/assets/init.js']) {
      const first = await t.http.get(src);
      expect(first.headers['cache-control'], src).toBe('no-cache');
      const etag = String(first.headers.etag);
      expect(etag, src).toMatch(/^"[0-9a-f]{32}"$/);
      const again = await t.http.get(src).set('If-None-Match', etag);
      expect(again.status, src).toBe(304);
      expect(again.text ?? '', src).toBe('');
    }
    for (const name of ['other.js', '..%2F..%2Fpackage.json', 'constructor', '__proto__', 'toString']) {
      const res = await t.http.get(`/docs/assets/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.body.error.code, name).toBe('not_found');
    }
  });

  it('the partner document leaves out the operations API, metrics and the checkout pages; operators get them at /internal/openapi.json with the admin token', async () => {
    const partner = (await t.http.get('/v1/openapi.json')).body as { paths: Record<string, unknown> };
    const paths = Object.keys(partner.paths);
    expect(paths.filter((p) => /^\/(internal\/|checkout\/|metrics$)/.test(p))).toEqual([]);
    expect(paths).toContain('/v1/orders');

    expect((await t.http.get('/internal/openapi.json')).status).toBe(401);
    expect((await t.http.get('/internal/openapi.json').set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
    const res = await t.http.get('/internal/openapi.json').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    const internal = res.body as { paths: Record<string, unknown>; openapi: string };
    expect(internal.openapi).toBe('3.1.0');
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    const internalPaths = Object.keys(internal.paths);
    expect(internalPaths).toEqual(
      expect.arrayContaining(['/internal/orders/{order_id}/accept', '/checkout/{session_id}']),
    );
    expect(internalPaths.every((p) => /^\/(internal\/|checkout\/|metrics$)/.test(p))).toBe(true);
  });
});

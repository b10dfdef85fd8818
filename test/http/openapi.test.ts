import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
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

  it('when generated, then every route of the app is in it with an operation id and error responses', () => {
    const doc = t.service.app.openApiDocument() as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
    };
    for (const route of t.service.app.routes) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method];
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
    expect(without.sort()).toEqual(['get /docs', 'get /healthz', 'get /v1/openapi.json']);
  });

  it('when /docs is opened, then a readable reference page lists the operations', async () => {
    const res = await t.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('/v1/ping');
  });
});

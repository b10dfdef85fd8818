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
    const doc = t.service.app.openApiDocument() as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };
    for (const route of t.service.app.routes) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method];
      expect(op, `${route.method} ${path}`).toBeDefined();
      expect(op!.operationId).toBe(route.operationId);
      expect(Object.keys(op!.responses)).toContain('500');
      if ((route.auth ?? 'key') === 'key') expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(['401', '429']));
    }
  });

  it('when /docs is opened, then a readable reference page lists the operations', async () => {
    const res = await t.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('/v1/ping');
  });
});

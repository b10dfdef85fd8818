import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, type Scope } from '../../src/domain/scopes.js';
import type { RouteSpec } from '../../src/http/route.js';
import { bearer, startTestService, type TestService } from '../support/service.js';

// The scope matrix: every route of the app, called with a key that lacks exactly its scope, is a
// 403 insufficient_scope before anything else is looked at; with that scope alone it is not.

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

/** A request that would pass validation on most routes: dummy path ids, an empty JSON object. */
function call(route: RouteSpec, key: string) {
  const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) =>
    name === 'action' ? 'accept' : `dummy_${name}`,
  );
  const req = t.http[route.method](path).set(bearer(key)).set('Idempotency-Key', 'scope-matrix-key-1');
  return route.method === 'get' ? req : req.send({});
}

const keyRoutes = () => t.service.app.routes.filter((r) => (r.auth ?? 'key') === 'key');
const scoped = () => keyRoutes().filter((r): r is RouteSpec & { scope: Scope } => r.scope !== undefined);

describe('scope matrix', () => {
  it('every partner route names a scope, except GET /v1/ping', () => {
    const unscoped = keyRoutes()
      .filter((r) => !r.scope)
      .map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(unscoped).toEqual(['GET /v1/ping']);
    expect(scoped().length).toBeGreaterThanOrEqual(20);
    // The document says the same (x-required-scope), so partners can read it.
    const doc = t.service.app.openApiDocument() as {
      paths: Record<string, Record<string, { 'x-required-scope'?: string }>>;
    };
    for (const r of scoped()) {
      const op = doc.paths[r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[r.method];
      expect(op?.['x-required-scope'], `${r.method} ${r.path}`).toBe(r.scope);
    }
  });

  it('a key lacking exactly the route scope gets 403 insufficient_scope on every route (both environments)', async () => {
    const missing: string[] = [];
    for (const scope of ALL_SCOPES) {
      const p = await t.partner({ scopes: ALL_SCOPES.filter((s) => s !== scope) });
      for (const route of scoped().filter((r) => r.scope === scope)) {
        for (const key of [p.sandbox, p.live]) {
          const res = await call(route, key);
          if (res.status !== 403 || res.body.error?.code !== 'insufficient_scope') {
            missing.push(
              `${route.method.toUpperCase()} ${route.path} (${key.slice(0, 9)}) -> ${res.status} ${res.body.error?.code}`,
            );
          }
          expect(res.body.data).toBeUndefined();
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('a key with only that scope is let through the scope check on its routes, and refused on every other scoped route', async () => {
    for (const scope of ALL_SCOPES) {
      const p = await t.partner({ scopes: [scope] });
      for (const route of scoped()) {
        const res = await call(route, p.sandbox);
        const refused = res.status === 403 && res.body.error?.code === 'insufficient_scope';
        expect(
          refused,
          `${scope} key on ${route.method.toUpperCase()} ${route.path} -> ${res.status} ${res.body.error?.code}`,
        ).toBe(route.scope !== scope);
      }
    }
  });

  it('the operations API takes no partner key: 404 while ADMIN_TOKEN is unset (as documented), 401 with one set', async () => {
    const admin = t.service.app.routes.filter((r) => r.auth === 'admin');
    expect(admin.length).toBeGreaterThan(0);
    const p = await t.partner();
    // t has no ADMIN_TOKEN; every answer is also checked against the document by t.http.
    for (const route of admin) {
      const res = await call(route, p.live);
      expect([res.status, res.body.error?.code], `${route.method} ${route.path}`).toEqual([404, 'not_found']);
    }
    const withToken = await startTestService({ env: { ADMIN_TOKEN: 'a'.repeat(32) } });
    try {
      const q = await withToken.partner();
      // Undocumented routes (the catch-all for unknown operations actions) answer outside the document t.http checks against.
      for (const route of withToken.service.app.routes.filter((r) => r.auth === 'admin' && !r.undocumented)) {
        const res = await withToken.http[route.method](route.path.replace(/:([A-Za-z0-9_]+)/g, 'x')).set(
          bearer(q.live),
        );
        expect([res.status, res.body.error?.code], `${route.method} ${route.path}`).toEqual([401, 'invalid_api_key']);
      }
    } finally {
      await withToken.close();
    }
  });

  it('the scope is checked before validation: an invalid request without the scope is still a 403', async () => {
    const p = await t.partner({ scopes: ['catalog:read'] });
    const res = await t.http.post('/v1/orders').set(bearer(p.sandbox)).send({ nonsense: true });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });
});

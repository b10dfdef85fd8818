import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import supertest from 'supertest';
import { OPS_ACTIONS, runOperation, type OpsAction } from '../../src/application/orders/operations.js';
import { isApiError } from '../../src/domain/errors.js';
import { OPERATION_EXAMPLES } from '../../src/http/openapi/examples.js';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { newKey, orderBody } from '../support/orders.js';

// The operations API in the operators' document: one operation per action, each with the body that
// action takes, and the service refusing exactly what that body schema refuses.

const ADMIN_TOKEN = 'ops-doc-admin-token-0123456789abcdef';
const REQUIRED: Partial<Record<OpsAction, string[]>> = {
  'assign-rider': ['name', 'phone', 'vehicle'],
  'rider-location': ['lat', 'lng'],
};

type Schema = {
  $ref?: string;
  required?: string[];
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
};
type Op = {
  operationId: string;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
};
type Doc = { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, Schema> } };

let t: TestService;
let p: TestPartner;
let doc: Doc;
beforeAll(async () => {
  t = await startTestService({ env: { ADMIN_TOKEN } });
  p = await t.partner();
  doc = t.service.app.internalOpenApiDocument() as Doc;
});
afterAll(() => t.close());

const ops = (path: string) => t.http.post(path).set(bearer(ADMIN_TOKEN));
const raw = () => supertest(t.service.app.express);
async function placeOrder(): Promise<string> {
  const res = await t.http.post('/v1/orders').set(bearer(p.sandbox)).set('Idempotency-Key', newKey()).send(orderBody());
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as string;
}
/** The body schema of an action's operation, $ref resolved. */
function bodyOf(action: string): { ref: string; schema: Schema; required: boolean } {
  const op = doc.paths[`/internal/orders/{order_id}/${action}`]!.post!;
  const ref = op.requestBody!.content['application/json']!.schema.$ref!;
  return { ref, schema: doc.components.schemas[ref.split('/').pop()!]!, required: op.requestBody!.required === true };
}
/** A body the action's documented example sends, or {}. */
const exampleBody = (action: string): Record<string, unknown> => {
  const id = doc.paths[`/internal/orders/{order_id}/${action}`]!.post!.operationId;
  return { ...(OPERATION_EXAMPLES[id]?.request?.body as Record<string, unknown> | undefined) };
};

describe("the operations API in the operators' document", () => {
  it('has one operation per action, each with its own body schema stating the fields that action requires', () => {
    const paths = Object.keys(doc.paths).filter((path) => path.startsWith('/internal/orders/'));
    expect(paths.sort()).toEqual(OPS_ACTIONS.map((a) => `/internal/orders/{order_id}/${a}`).sort());
    const refs = new Set<string>();
    for (const action of OPS_ACTIONS) {
      const op = doc.paths[`/internal/orders/{order_id}/${action}`]!.post!;
      expect(
        op.parameters?.map((x) => `${x.in}:${x.name}`),
        action,
      ).toEqual(['path:order_id']);
      const { ref, schema, required } = bodyOf(action);
      refs.add(ref);
      expect(schema.required ?? [], action).toEqual(REQUIRED[action] ?? []);
      // A body is needed exactly when a field is; the others may be omitted.
      expect(required, action).toBe(action in REQUIRED);
      expect(schema.additionalProperties, action).toBe(false);
      expect(Object.keys(schema.properties ?? {}).sort(), action).toEqual(
        ['amount', 'lat', 'lng', 'name', 'phone', 'reason', 'vehicle'].sort(),
      );
    }
    expect(refs.size).toBe(OPS_ACTIONS.length);
  });

  it('the service refuses exactly what each body schema refuses: a missing required field, an unknown field, a missing body where one is required', async () => {
    const missing = 'ord_does_not_exist';
    for (const action of OPS_ACTIONS) {
      const path = `/internal/orders/${missing}/${action}`;
      // A valid body (the documented example's) passes validation and meets the unknown order.
      const ok = await ops(path).send(exampleBody(action));
      expect([ok.status, ok.body.error?.code], action).toEqual([404, 'order_not_found']);
      const extra = await ops(path).send({ ...exampleBody(action), courier: 'x' });
      expect([extra.status, extra.body.error?.param], action).toEqual([400, 'courier']);
      const none = await ops(path);
      if (action in REQUIRED) expect([none.status, none.body.error?.param], action).toEqual([400, 'body']);
      else expect(none.status, action).toBe(404);
      for (const field of REQUIRED[action] ?? []) {
        const body = exampleBody(action);
        delete body[field];
        const res = await ops(path).send(body);
        expect([res.status, res.body.error?.code, res.body.error?.param], `${action} without ${field}`).toEqual([
          400,
          'validation_error',
          field,
        ]);
      }
    }
  });

  it('what the document requires is what runOperation (the CLI runs it too) requires, action by action', async () => {
    const deps = { orders: t.service.services.orders, riders: t.service.services.riders };
    for (const action of OPS_ACTIONS) {
      const id = await placeOrder();
      const refusedFields: string[] = [];
      for (const field of ['reason', 'name', 'phone', 'vehicle', 'amount', 'lat', 'lng']) {
        // Everything the example sends but this field: refused for this field, or not for validation.
        const args = exampleBody(action);
        delete args[field];
        try {
          await runOperation(deps, id, action, args);
        } catch (err) {
          if (isApiError(err) && err.code === 'validation_error') refusedFields.push(err.param ?? '?');
        }
      }
      expect(refusedFields.sort(), action).toEqual([...(REQUIRED[action] ?? [])].sort());
    }
  });

  it('text partners will see (a reason, a rider) follows the API text rule, through HTTP and runOperation alike', async () => {
    const deps = { orders: t.service.services.orders, riders: t.service.services.riders };
    const id = await placeOrder();
    const before = await t.stores.events.headPosition();
    for (const [action, body] of [
      ['cancel', { reason: 'kitchen \u202eclosed' }],
      ['assign-rider', { name: 'Ali\nNote', phone: '+96550001234', vehicle: 'bike' }],
    ] as const) {
      const field = 'reason' in body ? 'reason' : 'name';
      const res = await raw().post(`/internal/orders/${id}/${action}`).set(bearer(ADMIN_TOKEN)).send(body);
      expect([res.status, res.body.error?.code, res.body.error?.param], action).toEqual([
        400,
        'validation_error',
        field,
      ]);
      const direct = await runOperation(deps, id, action, { ...body }).catch((err: unknown) => err);
      expect(isApiError(direct) && [direct.code, direct.param], action).toEqual(['validation_error', field]);
    }
    expect(await t.stores.events.headPosition()).toBe(before);
    const accepted = await raw()
      .post(`/internal/orders/${id}/cancel`)
      .set(bearer(ADMIN_TOKEN))
      .send({ reason: 'المطبخ\u200cمغلق' });
    expect([accepted.status, accepted.body.data.cancellation?.reason]).toEqual([200, 'المطبخ\u200cمغلق']);
  });

  it('an unknown action is still 400 validation_error after the admin token (401 without it); an escaped known one runs as that action', async () => {
    const id = await placeOrder();
    const unknown = await raw().post(`/internal/orders/${id}/teleport`).set(bearer(ADMIN_TOKEN)).send({});
    expect([unknown.status, unknown.body.error?.code, unknown.body.error?.param]).toEqual([
      400,
      'validation_error',
      'action',
    ]);
    expect((await raw().post(`/internal/orders/${id}/teleport`).send({})).status).toBe(401);
    expect((await raw().post(`/internal/orders/${id}/Accept`).set(bearer(ADMIN_TOKEN))).status).toBe(400);
    // Percent-escapes in the action segment have always been decoded: the action, with its own body rules.
    const noRider = await raw().post(`/internal/orders/${id}/assign-r%69der`).set(bearer(ADMIN_TOKEN)).send({});
    expect([noRider.status, noRider.body.error?.param]).toEqual([400, 'name']);
    const accepted = await raw().post(`/internal/orders/${id}/acc%65pt`).set(bearer(ADMIN_TOKEN));
    expect([accepted.status, accepted.body.data?.status]).toEqual([200, 'confirmed']);
    // GET on an action's path: 405, POST allowed.
    const get = await raw().get(`/internal/orders/${id}/accept`).set(bearer(ADMIN_TOKEN));
    expect([get.status, get.headers.allow]).toEqual([405, 'POST']);
  });
});

describe('the operations API: what it refuses before acting', () => {
  it('without an Authorization header, then 401 missing_api_key naming ADMIN_TOKEN; with a wrong token, invalid_api_key', async () => {
    const none = await raw().get('/internal/projections');
    expect([none.status, none.body.error?.code]).toEqual([401, 'missing_api_key']);
    expect(none.body.error.message).toContain('ADMIN_TOKEN');
    expect(none.headers['www-authenticate']).toBe('Bearer realm="partner-ordering"');
    const wrong = await raw()
      .get('/internal/projections')
      .set(bearer(`${ADMIN_TOKEN}x`));
    expect([wrong.status, wrong.body.error?.code]).toEqual([401, 'invalid_api_key']);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="partner-ordering", error="invalid_token"');
    // The token twice (superagent sends each value of an array as a line of its own): refused, as on /v1.
    const twice = await raw()
      .get('/internal/projections')
      .set('Authorization', [`Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`] as unknown as string);
    expect([twice.status, twice.body.error?.message]).toEqual([401, 'Send one Authorization header, not several.']);
  });

  it('when a route that takes no body is sent fields, then 400 naming them and nothing is done; an empty object is no field', async () => {
    const position = async () =>
      (
        (await raw().get('/internal/projections').set(bearer(ADMIN_TOKEN))).body.data as Array<{
          name: string;
          position: string;
        }>
      ).find((s) => s.name === 'orders-list')!.position;
    await placeOrder();
    await t.http.get('/v1/orders').set(bearer(p.sandbox)); // waits for the list's read model
    const before = await position();
    expect(BigInt(before)).toBeGreaterThan(0n);
    for (const body of [{ dry_run: true }, [1, 2]]) {
      const res = await raw().post('/internal/projections/orders-list/rebuild').set(bearer(ADMIN_TOKEN)).send(body);
      expect([res.status, res.body.error?.code, res.body.error?.param]).toEqual(
        Array.isArray(body) ? [400, 'validation_error', 'body'] : [400, 'validation_error', 'dry_run'],
      );
    }
    expect(await position()).toBe(before);
    const rebuilt = await raw().post('/internal/projections/orders-list/rebuild').set(bearer(ADMIN_TOKEN)).send({});
    expect(rebuilt.status).toBe(202);
    const deleted = await t.http.delete('/v1/webhooks/endpoint').set(bearer(p.sandbox)).send({ force: true });
    expect([deleted.status, deleted.body.error?.param]).toEqual([400, 'force']);
    // As for unknown query parameters, ping and what tools fetch ignore them.
    expect((await t.http.get('/v1/ping').set(bearer(p.sandbox)).send({ verbose: true })).status).toBe(200);
  });
});

describe('a rebuild asked once the read models have stopped (a shutdown past its grace deadline)', () => {
  let s: TestService;
  beforeAll(async () => (s = await startTestService({ env: { ADMIN_TOKEN } })));
  afterAll(() => s.close());

  it('when it is asked through the API or the console, then each answers 503 and nothing is dropped', async () => {
    const q = await s.partner();
    const placed = await s.http
      .post('/v1/orders')
      .set(bearer(q.sandbox))
      .set('Idempotency-Key', newKey())
      .send(orderBody());
    expect(placed.status).toBe(201);
    expect((await s.http.get('/v1/orders').set(bearer(q.sandbox))).body.data).toHaveLength(1);
    await s.service.services.readModels.runner('orders-list').stop();

    const api = await supertest(s.service.app.express)
      .post('/internal/projections/orders-list/rebuild')
      .set(bearer(ADMIN_TOKEN))
      .send({});
    expect([api.status, api.body.error?.code]).toEqual([503, 'service_unavailable']);

    const agent = supertest.agent(s.service.app.express);
    expect((await agent.post('/console/login').type('form').send({ token: ADMIN_TOKEN })).status).toBe(303);
    const csrf = /name="csrf" value="([^"]+)"/.exec((await agent.get('/console/read-side')).text)?.[1];
    expect(csrf).toBeTruthy();
    const page = await agent.post('/console/read-side/orders-list/rebuild').type('form').send({ csrf });
    expect(page.status).toBe(503);
    expect(page.text).toContain('no replay was started');

    const docs = await s.stores.readModels.all('orders');
    expect(docs.map((d) => d.id)).toEqual([placed.body.data.id]);
  });
});

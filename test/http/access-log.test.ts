import fs from 'node:fs';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerAdmin } from '../../src/application/partners.js';
import { loadConfig } from '../../src/config.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { http, type Http } from '../support/http.js';
import { failingApp } from '../support/failing-app.js';
import { bearer, tempDataDir } from '../support/service.js';

// The access log: one JSON line per request, at info (error for 5xx), with the same fields every
// time and nothing the caller sent beyond method and route shape.

function memorySink() {
  const lines: LogLine[] = [];
  const sink = jsonLineSink(lines);
  return { lines, sink };
}

let dataDir: string;
let stores: Stores;
let service: Service;
let api: Http;
let key: string;
let partnerId: string;
const { lines, sink } = memorySink();

beforeAll(async () => {
  dataDir = tempDataDir();
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info', SQLITE_SYNCHRONOUS: 'NORMAL' });
  const clock = new ManualClock();
  stores = await openStores(config);
  service = await buildService(config, stores, { logger: createLogger({ level: 'info', destination: sink }), clock });
  api = http(service.app);
  const created = await new PartnerAdmin(stores.partners, clock, 1200).createPartner({ name: 'Logged' });
  key = created.sandbox.key;
  partnerId = created.partner.id;
});
afterAll(async () => {
  await service.stop();
  await stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The access-log line of the response with this request id (exactly one). */
function lineOf(res: { headers: Record<string, string> }): LogLine {
  const mine = lines.filter(
    (l) => l.request_id === res.headers['x-request-id'] && (l.msg === 'request' || l.msg === 'request failed'),
  );
  expect(mine).toHaveLength(1);
  return mine[0]!;
}

const FIELDS = ['level', 'time', 'pid', 'hostname', 'request_id', 'method', 'route', 'status', 'duration_ms'];

describe('access log', () => {
  it('a successful call logs one info line with the route pattern, partner and environment, and never the key', async () => {
    const res = await api.get('/v1/ping').set(bearer(key));
    expect(res.status).toBe(200);
    const line = lineOf(res);
    expect(Object.keys(line).sort()).toEqual([...FIELDS, 'partner_id', 'environment', 'msg'].sort());
    expect(line).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: '/v1/ping',
      status: 200,
      partner_id: partnerId,
      environment: 'sandbox',
    });
    expect(typeof line.duration_ms).toBe('number');
    expect(line.duration_ms as number).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(lines)).not.toContain(key);
  });

  it('a route with parameters logs its pattern, not the values; HEAD is logged as HEAD', async () => {
    const res = await api.get('/v1/stores/no-such-store').set(bearer(key));
    expect(res.status).toBe(404);
    expect(lineOf(res)).toMatchObject({
      route: '/v1/stores/:store_id',
      status: 404,
      error_code: 'store_not_found',
      partner_id: partnerId,
    });
    const head = await (await import('supertest')).default(service.app.express).head('/v1/ping').set(bearer(key));
    expect(head.status).toBe(200);
    expect(lineOf(head)).toMatchObject({ method: 'HEAD', route: '/v1/ping', status: 200 });
  });

  it('a refused call logs its error code and no partner', async () => {
    const res = await api.get('/v1/ping');
    expect(res.status).toBe(401);
    const line = lineOf(res);
    expect(Object.keys(line).sort()).toEqual([...FIELDS, 'error_code', 'msg'].sort());
    expect(line).toMatchObject({ level: 30, route: '/v1/ping', status: 401, error_code: 'missing_api_key' });
  });

  it('an unknown path is "(unmatched)"; a wrong method shows the path with ids masked', async () => {
    expect(lineOf(await api.get('/v1/nothing/svc_test_abc').set(bearer(key)))).toMatchObject({
      route: '(unmatched)',
      status: 404,
      error_code: 'not_found',
    });
    const wrong = await api.delete('/v1/orders/ord_4Hf9sQ2').set(bearer(key));
    expect(wrong.status).toBe(405);
    expect(lineOf(wrong)).toMatchObject({
      method: 'DELETE',
      route: '/v1/orders/:id',
      status: 405,
      error_code: 'method_not_allowed',
    });
  });

  it('a body refused before routing logs the path shape and the code', async () => {
    const res = await api.post('/v1/orders').set(bearer(key)).set('Content-Type', 'application/json').send('{"a":');
    expect(res.status).toBe(400);
    expect(lineOf(res)).toMatchObject({
      method: 'POST',
      route: '/v1/orders',
      status: 400,
      error_code: 'validation_error',
    });
  });
});

describe('access log of a failure', () => {
  it('a 500 is logged at error level as "request failed"', async () => {
    const own = memorySink();
    const app = failingApp(new Error('fault'), own.lines, { path: '/boom/:id' });
    const res = await http(app).get('/boom/1');
    expect(res.status).toBe(500);
    const line = own.lines.find((l) => l.msg === 'request failed');
    expect(line).toMatchObject({
      level: 50,
      request_id: res.headers['x-request-id'],
      route: '/boom/:id',
      status: 500,
      error_code: 'internal_error',
    });
  });
});

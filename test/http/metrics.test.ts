import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { demoCatalog, placeOrder } from '../support/orders.js';
import { find, parseSamples } from '../support/prometheus.js';

// GET /metrics: this replica's metrics in the Prometheus text format, behind ADMIN_TOKEN like
// /internal, with HTTP requests labelled by route pattern, event store appends and projection lag.

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
let t: TestService;
let p: TestPartner;

beforeAll(async () => {
  t = await startTestService({ env: { ADMIN_TOKEN, WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' } });
  await t.service.services.catalog.import(demoCatalog());
  p = await t.partner();
});
afterAll(() => t.close());

async function scrape() {
  const res = await t.http.get('/metrics').set(admin);
  expect(res.status).toBe(200);
  return parseSamples(res.text);
}

describe('GET /metrics', () => {
  it('when called without the admin token or with a wrong one, then 401 in the error envelope', async () => {
    const none = await t.http.get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('missing_api_key');
    const partnerKey = await t.http.get('/metrics').set(bearer(p.sandbox));
    expect(partnerKey.status).toBe(401);
    const wrong = await t.http.get('/metrics').set({ Authorization: `Bearer ${ADMIN_TOKEN}x` });
    expect(wrong.status).toBe(401);
  });

  it('when called with the admin token, then 200 in the Prometheus text format 0.0.4 with the process metrics', async () => {
    const res = await t.http.get('/metrics').set(admin);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
    const samples = parseSamples(res.text);
    expect(find(samples, 'process_cpu_user_seconds_total')).toHaveLength(1);
    expect(find(samples, 'nodejs_heap_size_used_bytes')).toHaveLength(1);
    expect(find(samples, 'replica_info')[0]).toMatchObject({
      labels: { replica: t.service.metrics.replica },
      value: 1,
    });
  });

  it('after some requests, then they are counted by route pattern and status, never by the path as sent', async () => {
    const orderId = 'ord_doesnotexist123';
    for (let i = 0; i < 3; i++) expect((await t.http.get('/v1/ping').set(bearer(p.sandbox))).status).toBe(200);
    expect((await t.http.get(`/v1/orders/${orderId}`).set(bearer(p.sandbox))).status).toBe(404);
    expect((await t.http.get('/v1/no-such-thing/abc').set(bearer(p.sandbox))).status).toBe(404);
    const res = await t.http.get('/metrics').set(admin);
    const samples = parseSamples(res.text);

    expect(
      find(samples, 'http_requests_total', { method: 'GET', route: '/v1/ping', status: '200' })[0]?.value,
    ).toBeGreaterThanOrEqual(3);
    expect(
      find(samples, 'http_requests_total', { method: 'GET', route: '/v1/orders/:order_id', status: '404' })[0]?.value,
    ).toBe(1);
    expect(
      find(samples, 'http_requests_total', { route: '(unmatched)', status: '404' })[0]?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(find(samples, 'http_requests_total', { route: '/metrics', status: '401' })[0]?.value).toBeGreaterThanOrEqual(
      1,
    );
    const pingCount = find(samples, 'http_request_duration_seconds_count', {
      method: 'GET',
      route: '/v1/ping',
      status: '200',
    })[0];
    expect(pingCount?.value).toBeGreaterThanOrEqual(3);
    expect(
      find(samples, 'http_request_duration_seconds_bucket', { route: '/v1/ping', status: '200', le: '+Inf' })[0]?.value,
    ).toBe(pingCount?.value);
    expect(res.text).not.toContain(orderId);
    expect(res.text).not.toContain('no-such-thing');
  });

  it('after an order is placed, then the append latency histogram has counted ok appends', async () => {
    const before = find(await scrape(), 'event_store_append_duration_seconds_count', { outcome: 'ok' })[0]?.value ?? 0;
    const res = await placeOrder(t.http, p.sandbox);
    expect(res.status).toBe(201);
    const samples = await scrape();
    expect(find(samples, 'event_store_append_duration_seconds_count', { outcome: 'ok' })[0]!.value).toBeGreaterThan(
      before,
    );
    expect(find(samples, 'event_store_append_duration_seconds_sum', { outcome: 'ok' })[0]!.value).toBeGreaterThan(0);
    // Every outcome is there from the start, so a rate over it is never "no data".
    expect(find(samples, 'event_store_append_duration_seconds_count', { outcome: 'conflict' })).toHaveLength(1);
    expect(find(samples, 'event_store_append_duration_seconds_count', { outcome: 'error' })).toHaveLength(1);
  });

  it('then each projection reports its lag behind the head and its position', async () => {
    const order = await placeOrder(t.http, p.sandbox);
    expect(order.status).toBe(201);
    // Read-your-writes: once the list shows the order, the read models have reached the head.
    const listed = (await t.http.get('/v1/orders?limit=100').set(bearer(p.sandbox))).body.data as Array<{ id: string }>;
    expect(listed.map((o) => o.id)).toContain(order.body.data.id);
    const samples = await scrape();
    const head = find(samples, 'event_store_head_position')[0]!.value;
    expect(head).toBeGreaterThan(0);
    for (const name of t.service.services.readModels.runners.keys()) {
      const lag = find(samples, 'projection_lag_positions', { projection: name });
      const position = find(samples, 'projection_position', { projection: name });
      expect(lag, name).toHaveLength(1);
      expect(position, name).toHaveLength(1);
      expect(lag[0]!.value).toBe(Math.max(0, head - position[0]!.value));
    }
    // The list showed the order, so its projection has applied the order's events.
    expect(find(samples, 'projection_position', { projection: 'orders-list' })[0]!.value).toBeGreaterThan(0);
  });

  it('then this lone replica holds the webhook sender lease, and the queue and both consumer groups report', async () => {
    const samples = await scrape();
    for (const outcome of ['succeeded', 'failed', 'abandoned'])
      expect(find(samples, 'webhook_attempts_total', { outcome })).toHaveLength(1);
    expect(find(samples, 'lease_held', { lease: 'webhook-sender', replica: t.service.metrics.replica })[0]?.value).toBe(
      1,
    );
    expect(t.service.webhooks.lease.holder).toBe(t.service.metrics.replica);
    expect(find(samples, 'webhook_retry_queue_depth')).toHaveLength(1);
    for (const group of ['webhook-dispatcher', 'auto-accept']) {
      const lag = find(samples, 'consumer_group_lag', { group });
      expect(lag, group).toHaveLength(1);
      expect(lag[0]!.value).toBeGreaterThanOrEqual(0);
    }
  });

  it('when a webhook attempt is made, then it is counted by outcome with its duration', async () => {
    const before = find(await scrape(), 'webhook_attempts_total', { outcome: 'failed' })[0]!.value;
    // An endpoint nobody listens on: the attempt fails at once, connection refused.
    const put = await t.http
      .put('/v1/webhooks/endpoint')
      .set(bearer(p.sandbox))
      .send({ url: 'http://127.0.0.1:9999/hooks' });
    expect(put.status).toBe(201);
    const sent = await t.http.post('/v1/webhooks/test').set(bearer(p.sandbox));
    expect(sent.status).toBe(202);
    await t.service.webhooks.scheduler.runDue();
    const samples = await scrape();
    expect(find(samples, 'webhook_attempts_total', { outcome: 'failed' })[0]!.value).toBe(before + 1);
    expect(
      find(samples, 'webhook_attempt_duration_seconds_count', { outcome: 'failed' })[0]!.value,
    ).toBeGreaterThanOrEqual(1);
  });

  it('in the OpenAPI documents, then /metrics is an operations endpoint behind the admin token, not a partner operation', () => {
    const partner = t.service.app.openApiDocument() as { paths: Record<string, unknown> };
    expect(partner.paths['/metrics']).toBeUndefined();
    const doc = t.service.app.internalOpenApiDocument() as {
      paths: Record<string, Record<string, { tags: string[]; security: unknown[] }>>;
    };
    const op = doc.paths['/metrics']!.get!;
    expect(op.tags).toEqual(['Operations']);
    expect(op.security).toEqual([{ adminToken: [] }]);
  });
});

describe('GET /metrics of a standby replica', () => {
  it('when another replica holds the webhook sender lease, then lease_held is 0 for this one, not missing', async () => {
    const hour = 60 * 60 * 1000;
    const holder = await startTestService({
      webhooks: { lease: { holder: 'another-host/1/00000000', ttlMs: 6 * hour, tickMs: hour } },
    });
    const standby = await startTestService({ dataDir: holder.dataDir, env: { ADMIN_TOKEN } });
    try {
      expect(standby.service.webhooks.lease.holder).not.toBe('another-host/1/00000000');
      const res = await standby.http.get('/metrics').set(admin);
      const held = find(parseSamples(res.text), 'lease_held', {
        lease: 'webhook-sender',
        replica: standby.service.metrics.replica,
      });
      expect(held.map((s) => s.value)).toEqual([0]);
    } finally {
      await standby.stop();
      await holder.close();
    }
  });
});

describe('GET /metrics without ADMIN_TOKEN', () => {
  it('then it is disabled like /internal: 404', async () => {
    const t2 = await startTestService();
    try {
      const res = await t2.http.get('/metrics').set(admin);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    } finally {
      await t2.close();
    }
  });
});

describe('GET /metrics with METRICS_PORT set', () => {
  it('then the API port does not serve it (it is on the metrics port only), even with the admin token', async () => {
    const t3 = await startTestService({ env: { ADMIN_TOKEN, METRICS_PORT: '0' } });
    try {
      expect(t3.service.app.routes.some((r) => r.path === '/metrics')).toBe(false);
      const res = await t3.http.get('/metrics').set(admin);
      expect(res.status).toBe(404);
      // The service's metrics are still collected, for the metrics server.
      expect((await t3.service.metrics.scrape()).body).toContain(
        'http_requests_total{method="GET",route="(unmatched)",status="404"} 1',
      );
    } finally {
      await t3.close();
    }
  });
});

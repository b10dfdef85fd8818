import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../src/composition/metrics.js';
import { timedEventStore } from '../../src/composition/timed-event-store.js';
import { startMetricsServer } from '../../src/http/metrics-server.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { WrongExpectedRevisionError } from '../../src/ports/event-store.js';
import { noopMetrics } from '../../src/shared/metrics.js';
import { find, parseSamples } from '../support/prometheus.js';

// The metrics API the service's components call (src/shared/metrics.ts) and its prom-client
// implementation: one registry per instance, callbacks read at scrape time.

const samplesOf = async (m: PrometheusMetrics) => parseSamples((await m.scrape()).body);
const bare = () => new PrometheusMetrics({ replica: 'replica-a', processMetrics: false });

describe('PrometheusMetrics', () => {
  it('when two instances exist in one process, then each has its own registry and counts', async () => {
    const a = bare();
    const b = bare();
    a.httpRequest('GET', '/v1/ping', 200, 0.004);
    expect(find(await samplesOf(a), 'http_requests_total', { route: '/v1/ping' })[0]?.value).toBe(1);
    expect(find(await samplesOf(b), 'http_requests_total')).toEqual([]);
  });

  it("when process metrics are on (the default), then prom-client's default collectors are in every instance's scrape, once", async () => {
    for (const m of [new PrometheusMetrics({ replica: 'r1' }), new PrometheusMetrics({ replica: 'r2' })]) {
      const samples = await samplesOf(m);
      expect(find(samples, 'process_cpu_seconds_total')).toHaveLength(1);
      expect(find(samples, 'nodejs_eventloop_lag_seconds')).toHaveLength(1);
      expect(find(samples, 'replica_info')).toHaveLength(1);
    }
    expect(find(await samplesOf(bare()), 'process_cpu_seconds_total')).toEqual([]);
  });

  it('when webhook attempts are reported, then they are counted by outcome with their latency', async () => {
    const m = bare();
    m.webhookAttempt('succeeded', 0.2);
    m.webhookAttempt('succeeded', 0.3);
    m.webhookAttempt('failed', 8);
    m.webhookAttempt('abandoned', 1);
    const s = await samplesOf(m);
    expect(find(s, 'webhook_attempts_total', { outcome: 'succeeded' })[0]!.value).toBe(2);
    expect(find(s, 'webhook_attempts_total', { outcome: 'failed' })[0]!.value).toBe(1);
    expect(find(s, 'webhook_attempts_total', { outcome: 'abandoned' })[0]!.value).toBe(1);
    expect(find(s, 'webhook_attempt_duration_seconds_sum', { outcome: 'succeeded' })[0]!.value).toBeCloseTo(0.5);
    expect(find(s, 'webhook_attempt_duration_seconds_bucket', { outcome: 'failed', le: '4' })[0]!.value).toBe(0);
    expect(find(s, 'webhook_attempt_duration_seconds_bucket', { outcome: 'failed', le: '8' })[0]!.value).toBe(1);
  });

  it('when queue depth and group lag callbacks are registered, then each scrape reads them; unregistered or failing ones are left out', async () => {
    const m = bare();
    let depth = 3;
    const stopDepth = m.onRetryQueueDepth(() => depth);
    m.onConsumerGroupLag('webhook-dispatcher', async () => 7n);
    const stopAuto = m.onConsumerGroupLag('auto-accept', () => 0);
    m.onConsumerGroupLag('broken', () => {
      throw new Error('store down');
    });
    let s = await samplesOf(m);
    expect(find(s, 'webhook_retry_queue_depth')[0]!.value).toBe(3);
    expect(find(s, 'consumer_group_lag', { group: 'webhook-dispatcher' })[0]!.value).toBe(7);
    expect(find(s, 'consumer_group_lag', { group: 'auto-accept' })[0]!.value).toBe(0);
    expect(find(s, 'consumer_group_lag', { group: 'broken' })).toEqual([]);

    depth = 5;
    expect(find(await samplesOf(m), 'webhook_retry_queue_depth')[0]!.value).toBe(5);
    stopDepth();
    stopAuto();
    s = await samplesOf(m);
    expect(find(s, 'webhook_retry_queue_depth')).toEqual([]);
    expect(find(s, 'consumer_group_lag', { group: 'auto-accept' })).toEqual([]);
    expect(find(s, 'consumer_group_lag', { group: 'webhook-dispatcher' })).toHaveLength(1);
  });

  it('when leases are taken and lost, then lease_held says so with this replica named, and replica_info names it', async () => {
    const m = bare();
    m.setLeaseHeld('projector:orders-list', true);
    m.setLeaseHeld('webhook-sender', true);
    m.setLeaseHeld('webhook-sender', false);
    const s = await samplesOf(m);
    expect(find(s, 'lease_held', { lease: 'projector:orders-list', replica: 'replica-a' })[0]!.value).toBe(1);
    expect(find(s, 'lease_held', { lease: 'webhook-sender', replica: 'replica-a' })[0]!.value).toBe(0);
    expect(find(s, 'replica_info')).toEqual([{ name: 'replica_info', labels: { replica: 'replica-a' }, value: 1 }]);
    const named = new PrometheusMetrics({ processMetrics: false }).replica;
    expect(named.startsWith(`${os.hostname()}/${process.pid}/`)).toBe(true);
    expect(new PrometheusMetrics({ processMetrics: false }).replica).not.toBe(named);
  });

  it('when the projections are watched, then one status read per scrape feeds lag, position and head; a failed read leaves them out', async () => {
    const m = bare();
    let reads = 0;
    let fail = false;
    m.watchProjections(async () => {
      reads++;
      if (fail) throw new Error('read store down');
      return [{ name: 'orders-list', collection: 'orders', position: '90', checkpoint: '80', head: '100', lag: '10' }];
    });
    let s = await samplesOf(m);
    expect(reads).toBe(1);
    expect(find(s, 'projection_lag_positions', { projection: 'orders-list' })[0]!.value).toBe(10);
    expect(find(s, 'projection_position', { projection: 'orders-list' })[0]!.value).toBe(90);
    expect(find(s, 'event_store_head_position')[0]!.value).toBe(100);
    fail = true;
    s = await samplesOf(m);
    expect(reads).toBe(2);
    expect(find(s, 'projection_lag_positions')).toEqual([]);
    expect(find(s, 'event_store_head_position')).toEqual([]);
  });

  it('when nothing is wired (noopMetrics), then every call is accepted and does nothing', () => {
    noopMetrics.webhookAttempt('failed', 1);
    noopMetrics.setLeaseHeld('x', true);
    noopMetrics.onRetryQueueDepth(() => 1)();
    noopMetrics.onConsumerGroupLag('g', () => 1)();
    noopMetrics.httpRequest('GET', '/', 200, 0);
    noopMetrics.eventStoreAppend('ok', 0);
  });
});

describe('timedEventStore', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pos-metrics-'));
  const raw = new SqliteEventStore({ file: path.join(dir, 'events.db'), synchronous: 'NORMAL' });
  afterAll(async () => {
    await raw.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const event = { type: 'Noted', data: {}, metadata: {} };

  it('when appends succeed, conflict or fail, then each is timed under its outcome and the result or error passes through unchanged', async () => {
    const m = bare();
    const events = timedEventStore(raw, m);
    const result = await events.append('s-1', [event], { expectedRevision: 'no_stream' });
    expect(result.nextExpectedRevision).toBe(0);
    await expect(events.append('s-1', [event], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
      WrongExpectedRevisionError,
    );
    await expect(events.append('s-2', [], { expectedRevision: 'any' })).rejects.toBeInstanceOf(TypeError);
    const s = await samplesOf(m);
    expect(find(s, 'event_store_append_duration_seconds_count', { outcome: 'ok' })[0]!.value).toBe(1);
    expect(find(s, 'event_store_append_duration_seconds_count', { outcome: 'conflict' })[0]!.value).toBe(1);
    expect(find(s, 'event_store_append_duration_seconds_count', { outcome: 'error' })[0]!.value).toBe(1);
  });

  it('then every other member is the store itself: reads, the head, localFile, instanceof', async () => {
    const events = timedEventStore(raw, bare());
    expect((await events.readStream('s-1')).map((e) => e.type)).toEqual(['Noted']);
    expect(await events.headPosition()).toBe(await raw.headPosition());
    expect(events.localFile).toBe(raw.localFile);
    expect(events).toBeInstanceOf(SqliteEventStore);
    expect(events.readStream).toBe(events.readStream);
  });
});

describe('startMetricsServer (METRICS_PORT)', () => {
  it('then GET /metrics answers without a token in the Prometheus format; other paths 404, other methods 405', async () => {
    const m = bare();
    m.httpRequest('GET', '/v1/ping', 200, 0.001);
    const server = await startMetricsServer({ scrape: () => m.scrape(), port: 0, host: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(
        find(parseSamples(await res.text()), 'http_requests_total', { route: '/v1/ping', status: '200' })[0]!.value,
      ).toBe(1);
      expect((await fetch(`${base}/metrics?x=1`)).status).toBe(200);
      expect((await fetch(`${base}/v1/ping`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('when collecting fails, then 500 with the reason', async () => {
    const server = await startMetricsServer({
      scrape: () => Promise.reject(new Error('boom')),
      port: 0,
      host: '127.0.0.1',
    });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(res.status).toBe(500);
      expect(await res.text()).toContain('boom');
    } finally {
      await server.close();
    }
  });
});

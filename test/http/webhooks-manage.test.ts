import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestPartner } from '../support/service.js';
import { newKey, orderBody } from '../support/orders.js';
import { mongoTestServers, uniqueDbName, mongoReadStoreEnv } from '../support/mongo-server.js';
import { waitFor } from '../support/wait.js';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from './webhooks-fixture.js';
import { deferred } from '../support/deferred.js';

// Managing the endpoint, the events API and bulk recovery, on the embedded stores and with the
// endpoints and read models in MongoDB (every wire server CI has).

const backends: Array<{ name: string; env?: Record<string, string>; skip: boolean }> = [
  { name: 'embedded', skip: false },
  ...mongoTestServers('webhook management and events (READ_STORE=mongodb)').map((server) => ({
    name: `MongoDB [${server.name}]`,
    skip: !server.url,
    env: mongoReadStoreEnv(server.url ?? '', uniqueDbName('webhooks_manage')),
  })),
];

for (const backend of backends)
  describe.skipIf(backend.skip)(`webhooks you manage [${backend.name}]`, () => suite(backend.env));

function suite(env: Record<string, string> | undefined): void {
  let ts: WebhookService;
  let receiver: Receiver;
  beforeAll(async () => {
    ts = await startWebhookService({
      ...(env ? { env } : {}),
      webhooks: { timeoutMs: 2000, scheduler: { perEndpoint: 2 } },
    });
  });
  afterAll(() => ts.close());
  afterEach(() => receiver?.close());

  async function placeOrder(key: string): Promise<string> {
    const res = await ts.http.post('/v1/orders').set(bearer(key)).set('Idempotency-Key', newKey()).send(orderBody());
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  }

  async function advance(key: string, id: string, times: number): Promise<void> {
    for (let i = 0; i < times; i++)
      expect((await ts.http.post(`/v1/sandbox/orders/${id}/advance`).set(bearer(key)).send({})).status).toBe(200);
  }

  const get = (key: string, path: string) => ts.http.get(path).set(bearer(key));

  /** The events API's list, once it holds `count` events (events are derived moments after their change). */
  async function eventsOnceThere(key: string, count: number, query = ''): Promise<Array<Record<string, unknown>>> {
    return waitFor(
      async () => {
        const res = await get(key, `/v1/events?limit=100${query}`);
        expect(res.status).toBe(200);
        const data = res.body.data as Array<Record<string, unknown>>;
        return data.length >= count ? data : null;
      },
      { what: `${count} events` },
    );
  }

  const withoutDelivery = ({ delivery: _d, ...event }: Record<string, unknown>) => event;

  describe('the registered endpoint', () => {
    it('when none is registered, then GET answers 404 not_found; once registered, the registration without its secret', async () => {
      const p = await ts.partner();
      const none = await get(p.sandbox, '/v1/webhooks/endpoint');
      expect(none.status).toBe(404);
      expect(none.body.error.code).toBe('not_found');
      receiver = await startReceiver();
      const secret = await register(ts, p.sandbox, receiver.url);
      const res = await get(p.sandbox, '/v1/webhooks/endpoint');
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        object: 'webhook_endpoint',
        url: receiver.url,
        events: null,
        enabled_events: null,
        secret_hint: secret.slice(-4),
      });
      expect(res.body.data).not.toHaveProperty('secret');
      expect(JSON.stringify(res.body)).not.toContain(secret);
      expect((await get(p.live, '/v1/webhooks/endpoint')).status).toBe(404);
    });

    it('when the key lacks webhooks:manage, then GET, DELETE and recover answer 403', async () => {
      const p = await ts.partner('Reader', ['webhooks:read']);
      expect((await get(p.sandbox, '/v1/webhooks/endpoint')).status).toBe(403);
      expect((await ts.http.delete('/v1/webhooks/endpoint').set(bearer(p.sandbox))).status).toBe(403);
      const recover = await ts.http
        .post('/v1/webhooks/recover')
        .set(bearer(p.sandbox))
        .send({ since: ts.clock.now().toISOString() });
      expect(recover.status).toBe(403);
    });

    it('when enabled_events names some types, then only those are sent (webhook.test always), and every event is still listed', async () => {
      const p = await ts.partner();
      receiver = await startReceiver();
      const put = await ts.http
        .put('/v1/webhooks/endpoint')
        .set(bearer(p.sandbox))
        .send({ url: receiver.url, enabled_events: ['order.status_changed'] });
      expect(put.status).toBe(201);
      expect(put.body.data).toMatchObject({
        enabled_events: ['order.status_changed'],
        events: ['order.status_changed'],
      });
      const id = await placeOrder(p.sandbox);
      await advance(p.sandbox, id, 1);
      expect((await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({})).status).toBe(202);
      const got = await receiver.waitFor(2);
      expect(got.map((r) => r.event.type).sort()).toEqual(['order.status_changed', 'webhook.test']);
      const events = await eventsOnceThere(p.sandbox, 3);
      const created = events.find((e) => e.type === 'order.created');
      expect(created).toMatchObject({ delivery: null, data: { order: { id } } });
      const changed = events.find((e) => e.type === 'order.status_changed')!;
      expect(changed.delivery).toMatchObject({ status: 'succeeded', success: true });
    });

    it('when enabled_events and events disagree, then 422; unknown types, 400; each naming the field', async () => {
      const p = await ts.partner();
      const put = (body: Record<string, unknown>) =>
        ts.http
          .put('/v1/webhooks/endpoint')
          .set(bearer(p.sandbox))
          .send({ url: receiver.url, ...body });
      receiver = await startReceiver();
      const both = await put({ events: ['order.created'], enabled_events: ['order.refunded'] });
      expect(both.status).toBe(422);
      expect(both.body.error).toMatchObject({ code: 'conflicting_parameters', param: 'enabled_events' });
      const unknown = await put({ enabled_events: ['order.shipped'] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({ param: 'enabled_events' });
      expect(unknown.body.error.message).toContain('"order.shipped"');
      expect((await put({ events: ['order.created'], enabled_events: ['order.created'] })).status).toBe(201);
    });

    it('when deleted, then pending deliveries end as failed with the reason, nothing more is sent, and events go on being listed', async () => {
      const p = await ts.partner();
      receiver = await startReceiver();
      receiver.reply = () => ({ status: 500 });
      await register(ts, p.sandbox, receiver.url);
      const id = await placeOrder(p.sandbox);
      await receiver.waitFor(1);
      const retrying = await waitFor(async () => {
        const list = await get(p.sandbox, `/v1/webhooks/deliveries?order_id=${id}`);
        return list.body.data[0]?.status === 'retrying' ? list.body.data[0] : null;
      });

      const del = await ts.http.delete('/v1/webhooks/endpoint').set(bearer(p.sandbox));
      expect(del.status).toBe(200);
      expect(del.body.data).toMatchObject({ object: 'webhook_endpoint', deleted: true, failed_deliveries: 1 });
      expect(del.body.data).not.toHaveProperty('secret');
      const d = await get(p.sandbox, `/v1/webhooks/deliveries/${retrying.id}`);
      expect(d.body.data).toMatchObject({
        status: 'failed',
        next_attempt_at: null,
        failure_reason: 'the webhook endpoint was deleted',
      });
      expect((await get(p.sandbox, '/v1/webhooks/endpoint')).status).toBe(404);
      expect((await ts.http.delete('/v1/webhooks/endpoint').set(bearer(p.sandbox))).status).toBe(404);

      await advance(p.sandbox, id, 1);
      ts.clock.advance(60 * 60_000);
      await ts.scheduler.runDue();
      const events = await eventsOnceThere(p.sandbox, 2);
      expect(events[0]).toMatchObject({ type: 'order.status_changed', delivery: null });
      expect(receiver.received).toHaveLength(1);
      expect((await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({})).status).toBe(409);
      // A redelivery has nowhere to go either: refused the same way, no attempt recorded.
      const redeliver = await ts.http
        .post(`/v1/webhooks/deliveries/${retrying.id as string}/redeliver`)
        .set(bearer(p.sandbox))
        .send({});
      expect(redeliver.status).toBe(409);
      expect(redeliver.body.error.code).toBe('webhook_endpoint_not_configured');
      expect(
        (await get(p.sandbox, `/v1/webhooks/deliveries/${retrying.id as string}`)).body.data.attempts,
      ).toHaveLength(1);
    });
    it('when deleted while an attempt is out, then that attempt is recorded: a success stands, a failure ends the delivery as failed', async () => {
      const p = await ts.partner();
      receiver = await startReceiver();
      const { promise: answered, resolve: release } = deferred();
      receiver.reply = (n) => ({ status: n === 0 ? 200 : 500, until: answered });
      await register(ts, p.sandbox, receiver.url);
      const sent: Array<{ id: string; event_id: string }> = [];
      for (let i = 0; i < 2; i++)
        sent.push((await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({})).body.data);
      await receiver.waitFor(2);

      const del = await ts.http.delete('/v1/webhooks/endpoint').set(bearer(p.sandbox));
      expect(del.status).toBe(200);
      expect(del.body.data.failed_deliveries).toBe(0);
      release();
      const done = (id: string, status: string) =>
        waitFor(
          async () => {
            const d = (await get(p.sandbox, `/v1/webhooks/deliveries/${id}`)).body.data;
            return d.status === status && d.attempts.length === 1 ? d : null;
          },
          { what: `delivery ${id} ${status}` },
        );
      // The first request to arrive was answered 200, the second 500.
      const deliveryOf = (n: number) => sent.find((d) => d.event_id === receiver.received[n]!.event.id)!.id;
      const succeeded = deliveryOf(0);
      const failed = deliveryOf(1);
      expect((await done(succeeded, 'succeeded')).attempts[0]).toMatchObject({ status: 200, error: null });
      expect(await done(failed, 'failed')).toMatchObject({
        next_attempt_at: null,
        failure_reason: 'the webhook endpoint was deleted',
        attempts: [{ status: 500 }],
      });
    });

    it('when deleted and registered anew while an attempt is out, then its failure still ends the delivery: nothing goes to the new registration', async () => {
      const p = await ts.partner();
      receiver = await startReceiver();
      const { promise: answered, resolve: release } = deferred();
      receiver.reply = () => ({ status: 500, until: answered });
      await register(ts, p.sandbox, receiver.url);
      const sent = (await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({})).body.data as {
        id: string;
      };
      await receiver.waitFor(1);
      expect((await ts.http.delete('/v1/webhooks/endpoint').set(bearer(p.sandbox))).body.data.failed_deliveries).toBe(
        0,
      );
      ts.clock.advance(1);
      await register(ts, p.sandbox, receiver.url);
      release();
      const ended = await waitFor(
        async () => {
          const d = (await get(p.sandbox, `/v1/webhooks/deliveries/${sent.id}`)).body.data;
          return d.attempts.length === 1 && d.status !== 'pending' ? d : null;
        },
        { what: 'the attempt recorded' },
      );
      expect(ended).toMatchObject({
        status: 'failed',
        next_attempt_at: null,
        failure_reason: 'the webhook endpoint was deleted',
      });
      ts.clock.advance(60 * 60_000);
      await ts.scheduler.runDue();
      expect(receiver.received).toHaveLength(1);
    });

    it('when a scheduled attempt finds the endpoint gone (deleted meanwhile), then it ends its delivery as failed, not retried', async () => {
      const p = await ts.partner();
      receiver = await startReceiver();
      receiver.reply = () => ({ status: 500 });
      await register(ts, p.sandbox, receiver.url);
      const sent = await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
      await receiver.waitFor(1);
      await ts.scheduler.runDue();
      // Gone from the store alone, as when another replica's DELETE has not ended this delivery yet.
      const stored = await ts.stores.webhookEndpoints.get(p.id, 'sandbox');
      expect(await ts.stores.webhookEndpoints.delete(p.id, 'sandbox', stored!.version)).toBe(true);
      ts.clock.advance(60_000);
      await ts.scheduler.runDue();
      const d = (await get(p.sandbox, `/v1/webhooks/deliveries/${sent.body.data.id as string}`)).body.data;
      expect(d).toMatchObject({
        status: 'failed',
        next_attempt_at: null,
        failure_reason: 'the webhook endpoint was deleted',
      });
      expect(d.attempts.at(-1)).toMatchObject({ status: null, error: 'no webhook endpoint is registered any more' });
      expect(receiver.received).toHaveLength(1);
    });
  });

  describe('the events API', () => {
    let p: TestPartner;
    let orderA: string;
    let orderB: string;
    let start: string;
    let middle: string;
    beforeAll(async () => {
      p = await ts.partner();
      start = ts.clock.now().toISOString();
      receiver = await startReceiver();
      await register(ts, p.sandbox, receiver.url);
      orderA = await placeOrder(p.sandbox);
      await advance(p.sandbox, orderA, 2);
      ts.clock.advance(60_000);
      middle = ts.clock.now().toISOString();
      ts.clock.advance(1);
      orderB = await placeOrder(p.sandbox);
      expect((await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({})).status).toBe(202);
      await receiver.waitFor(5);
    });

    it('when webhooks were sent, then the events API lists the same ids and bodies, newest first', async () => {
      const events = await eventsOnceThere(p.sandbox, 5);
      expect(events).toHaveLength(5);
      const sent = new Map(receiver.received.map((r) => [r.event.id, JSON.parse(r.body) as unknown]));
      for (const e of events) {
        expect(withoutDelivery(e)).toEqual(sent.get(e.id as string));
        expect(e.delivery).toMatchObject({ status: 'succeeded', success: true });
      }
      const created = events.map((e) => e.created as string);
      expect([...created].sort().reverse()).toEqual(created);
      const one = await get(p.sandbox, `/v1/events/${events[2]!.id as string}`);
      expect(one.status).toBe(200);
      expect(one.body.data).toEqual(events[2]);
    });

    it('when filtered by type, order, time or paged, then each page and filter holds', async () => {
      const byType = await get(p.sandbox, '/v1/events?type=order.created');
      expect(byType.body.data.map((e: { data: { order: { id: string } } }) => e.data.order.id)).toEqual([
        orderB,
        orderA,
      ]);
      const byOrder = await get(p.sandbox, `/v1/events?order_id=${orderA}`);
      expect(byOrder.body.data.map((e: { type: string }) => e.type)).toEqual([
        'order.status_changed',
        'order.status_changed',
        'order.created',
      ]);
      const before = await get(p.sandbox, `/v1/events?created_before=${encodeURIComponent(middle)}`);
      expect(before.body.data).toHaveLength(3);
      const after = await get(p.sandbox, `/v1/events?created_after=${encodeURIComponent(middle)}`);
      expect(after.body.data).toHaveLength(2);
      const sinceStart = await get(p.sandbox, `/v1/events?created_after=${encodeURIComponent(start)}&limit=100`);
      expect(sinceStart.body.data).toHaveLength(2); // orderA's three events were created at `start` itself

      const all = (await get(p.sandbox, '/v1/events?limit=100')).body.data.map((e: { id: string }) => e.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(p.sandbox, `/v1/events?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
        expect(res.body.pagination.limit).toBe(2);
        seen.push(...res.body.data.map((e: { id: string }) => e.id));
        cursor = res.body.pagination.next_starting_after;
        expect(res.body.pagination.has_more).toBe(cursor !== null);
      } while (cursor);
      expect(seen).toEqual(all);
      const bad = await get(p.sandbox, '/v1/events?starting_after=evt_nope');
      expect(bad.status).toBe(400);
      expect((await get(p.sandbox, '/v1/events?delivery_success=maybe')).status).toBe(400);
      expect((await get(p.sandbox, '/v1/events?delivery_success=false')).body.data).toEqual([]);
    });

    it('when another partner or the other environment asks, then 404 and an empty list', async () => {
      const events = await eventsOnceThere(p.sandbox, 5);
      const id = events[0]!.id as string;
      const other = await ts.partner();
      const res = await get(other.sandbox, `/v1/events/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('event_not_found');
      expect((await get(p.live, `/v1/events/${id}`)).status).toBe(404);
      expect((await get(p.live, '/v1/events')).body.data).toEqual([]);
      expect((await get(other.sandbox, '/v1/events')).body.data).toEqual([]);
      expect((await get(p.sandbox, '/v1/events/evt_0123')).status).toBe(404);
    });

    it('when no endpoint is registered, then events are created and listed all the same', async () => {
      const q = await ts.partner();
      const id = await placeOrder(q.sandbox);
      await advance(q.sandbox, id, 1);
      const events = await eventsOnceThere(q.sandbox, 2);
      expect(events.map((e) => e.type)).toEqual(['order.status_changed', 'order.created']);
      expect(events[1]).toMatchObject({
        object: 'event',
        environment: 'sandbox',
        delivery: null,
        data: { order: { id, status: 'placed' } },
      });
      expect(events[0]).toMatchObject({ data: { order: { id, status: 'confirmed' }, previous_status: 'placed' } });
      expect((await get(q.sandbox, '/v1/webhooks/deliveries')).body.data).toEqual([]);
    });

    it('when the key lacks webhooks:read, then 403', async () => {
      const q = await ts.partner('No reader', ['orders:read']);
      expect((await get(q.sandbox, '/v1/events')).status).toBe(403);
    });
  });

  describe('bulk recovery', () => {
    it('when the receiver failed for a while and then recovers, then recover redelivers every failed event, in order per order, within the concurrency limit', async () => {
      const p = await ts.partner();
      receiver = await startReceiver();
      let failing = true;
      receiver.reply = () => (failing ? { status: 503 } : { status: 200, delayMs: 30 });
      await register(ts, p.sandbox, receiver.url);
      const since = ts.clock.now().toISOString();
      const orders = [await placeOrder(p.sandbox), await placeOrder(p.sandbox), await placeOrder(p.sandbox)];
      for (const id of orders) await advance(p.sandbox, id, 2);
      await receiver.waitFor(9);
      const failed = await eventsOnceThere(p.sandbox, 9, '&delivery_success=false');
      expect(failed).toHaveLength(9);

      failing = false;
      const res = await ts.http.post('/v1/webhooks/recover').set(bearer(p.sandbox)).send({ since });
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual({ object: 'webhook_recovery', since, queued: 9 });
      const got = (await receiver.waitFor(18)).slice(9);
      expect(new Set(got.map((r) => r.event.id))).toEqual(new Set(failed.map((e) => e.id)));
      for (const id of orders) {
        const mine = got.filter((r) => r.event.data.order?.id === id).map((r) => r.event.data.order!.status);
        expect(mine).toEqual(['placed', 'confirmed', 'preparing']);
      }
      // Never more than the endpoint's 2 at once.
      for (const r of got) {
        const overlapping = got.filter((o) => o.arrivedAt <= r.arrivedAt && (o.answeredAt ?? Infinity) > r.arrivedAt);
        expect(overlapping.length).toBeLessThanOrEqual(2);
      }
      await waitFor(async () => {
        const list = await get(p.sandbox, '/v1/events?delivery_success=false');
        return list.body.data.length === 0;
      });
      const deliveries = (await get(p.sandbox, '/v1/webhooks/deliveries?limit=100')).body.data as Array<{
        status: string;
        attempts: Array<{ trigger: string; status: number }>;
      }>;
      expect(deliveries).toHaveLength(9);
      for (const d of deliveries) {
        expect(d.status).toBe('succeeded');
        expect(d.attempts.map((a) => [a.trigger, a.status])).toEqual([
          ['schedule', 503],
          ['redelivery', 200],
        ]);
      }
    });

    /**
     * Four failed deliveries (two orders, two events each), then a recovery of them, once the first
     * redelivery of each order is out and held until `release()`.
     */
    async function recoveryUnderWay() {
      const p = await ts.partner();
      receiver = await startReceiver();
      let failing = true;
      const { promise: answered, resolve: release } = deferred();
      receiver.reply = () => (failing ? { status: 503 } : { status: 200, until: answered });
      await register(ts, p.sandbox, receiver.url);
      const since = ts.clock.now().toISOString();
      for (const id of [await placeOrder(p.sandbox), await placeOrder(p.sandbox)]) await advance(p.sandbox, id, 1);
      await receiver.waitFor(4);
      await eventsOnceThere(p.sandbox, 4, '&delivery_success=false');

      failing = false;
      const recover = () => ts.http.post('/v1/webhooks/recover').set(bearer(p.sandbox)).send({ since });
      expect((await recover()).body.data.queued).toBe(4);
      await receiver.waitFor(6);
      return { p, recover, release };
    }

    it('when recover is called again while the first is still redelivering, then no event is sent twice', async () => {
      const { recover, release } = await recoveryUnderWay();
      expect((await recover()).body.data.queued).toBe(0);
      release();
      await ts.service.webhooks.deliveries.recoveriesSettled();
      // A later call, once the first has finished, finds nothing left to send either.
      expect((await recover()).body.data.queued).toBe(0);
      await ts.service.webhooks.deliveries.recoveriesSettled();
      expect(receiver.received).toHaveLength(8);
      const ids = receiver.received.slice(4).map((r) => r.event.id);
      expect(new Set(ids).size).toBe(4);
    });

    it('when the endpoint is deleted while a recovery is redelivering, then what it had not sent yet is left alone, no attempt recorded', async () => {
      const { p, release } = await recoveryUnderWay();
      // Each order's second redelivery waits behind its first.
      expect((await ts.http.delete('/v1/webhooks/endpoint').set(bearer(p.sandbox))).status).toBe(200);
      release();
      await ts.service.webhooks.deliveries.recoveriesSettled();
      expect(receiver.received).toHaveLength(6);
      const deliveries = (await get(p.sandbox, '/v1/webhooks/deliveries?limit=100')).body.data as Array<{
        attempts: Array<{ trigger: string; error: string | null }>;
      }>;
      const attempts = deliveries.map((d) => d.attempts.map((a) => a.trigger)).sort();
      expect(attempts).toEqual([['schedule'], ['schedule'], ['schedule', 'redelivery'], ['schedule', 'redelivery']]);
    });

    it('when since is older than 30 days or in the future, or no endpoint is registered, then it is refused', async () => {
      const p = await ts.partner();
      const recover = (since: string) => ts.http.post('/v1/webhooks/recover').set(bearer(p.sandbox)).send({ since });
      expect((await recover(ts.clock.now().toISOString())).status).toBe(409);
      receiver = await startReceiver();
      await register(ts, p.sandbox, receiver.url);
      const old = new Date(ts.clock.now().getTime() - 31 * 24 * 3600_000).toISOString();
      const tooOld = await recover(old);
      // The range moves with the clock, so the document cannot state it: 422; a time of another form is a 400.
      expect(tooOld.status).toBe(422);
      expect(tooOld.body.error).toMatchObject({ code: 'time_out_of_range', param: 'since' });
      expect((await recover(new Date(ts.clock.now().getTime() + 60_000).toISOString())).status).toBe(422);
      expect((await recover('yesterday')).status).toBe(400);
      const none = await recover(ts.clock.now().toISOString());
      expect(none.status).toBe(202);
      expect(none.body.data.queued).toBe(0);
    });
  });
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import { MongoClient } from 'mongodb';
import { bearer, startTestService, tempDataDir, type TestPartner, type TestService } from '../support/service.js';
import { demoCatalogWith, newKey, orderBody, REEM } from '../support/orders.js';
import { requireMongoUrl, uniqueDbName, mongoReadStoreEnv } from '../support/mongo-server.js';
import { ensureBuilt, startChildService, type ChildService, stopChildService } from '../support/child-service.js';
import { runCliAsync } from '../support/cli-async.js';
import { EsdbStandIn } from '../support/esdb-stand-in.js';
import { EsdbEventStore } from '../../src/adapters/eventstoredb/event-store.js';
import { PROCESS_TEST_TIMEOUT_MS, waitFor } from '../support/wait.js';

const ADMIN_TOKEN = 'audit-admin-token-0123456789abcdef';
const MANUAL = demoCatalogWith({ [REEM.store_id]: { auto_accept: false } });

/** Runs the CLI as its own process (asynchronously: an in-process service may have to answer it). */
function cli(
  env: Record<string, string> & { DATA_DIR: string },
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliAsync(env.DATA_DIR, args, { ADMIN_TOKEN: '', ...env });
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// `npm test` builds first. Building here as well would rewrite dist/ under the service processes
// that other test files run at the same time.
beforeAll(() => ensureBuilt(), 120_000);

async function placeAndMove(
  t: TestService,
  key: string,
  actions: string[],
  over: Record<string, unknown> = {},
): Promise<string> {
  const placed = await t.http
    .post('/v1/orders')
    .set(bearer(key))
    .set('Idempotency-Key', newKey())
    .send(orderBody(over));
  expect(placed.status).toBe(201);
  const id = placed.body.data.id as string;
  for (const action of actions) {
    const body =
      action === 'assign-rider'
        ? { name: 'Ahmed', phone: '+96555512345', vehicle: 'motorbike' }
        : action === 'rider-location'
          ? { lat: 29.335, lng: 48.08 }
          : {};
    t.clock.advance(60_000);
    const res = await t.http
      .post(`/internal/orders/${id}/${action}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send(body);
    expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200);
  }
  return id;
}

describe(
  'embedded mode: order history, stream browser and the internal read-model API',
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    let t: TestService;
    let p: TestPartner;
    let delivered: string;
    let cancelled: string;
    const env = () => ({ DATA_DIR: t.dataDir });

    beforeAll(async () => {
      t = await startTestService({ env: { ADMIN_TOKEN } });
      await t.service.services.catalog.import(MANUAL);
      p = await t.partner();
      delivered = await placeAndMove(t, p.live, [
        'accept',
        'start',
        'assign-rider',
        'rider-location',
        'ready',
        'pickup',
        'deliver',
      ]);
      cancelled = await placeAndMove(t, p.live, ['cancel'], { reference: 'to-cancel' });
    });
    afterAll(() => t.close());

    it('when an order history is asked for, then every event is listed in order with actor, metadata and the status after it', async () => {
      const r = await cli(env(), ['orders', 'history', delivered]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const lines = r.stdout.split('\n').filter((l) => l.startsWith('#'));
      expect(lines.map((l) => /^#(\d+) .* (\w+)\s+by (\w+)\s+-> (\w+)/.exec(l)!.slice(1))).toEqual([
        ['0', 'OrderPlaced', 'partner', 'placed'],
        ['1', 'OrderAccepted', 'restaurant', 'confirmed'],
        ['2', 'OrderPreparationStarted', 'restaurant', 'preparing'],
        ['3', 'RiderAssigned', 'support', 'preparing'],
        ['4', 'OrderPacked', 'restaurant', 'ready'],
        ['5', 'OrderPickedUp', 'rider', 'out_for_delivery'],
        ['6', 'OrderDelivered', 'rider', 'delivered'],
      ]);
      expect(r.stdout).toContain(`partner_id=${p.id}`);
      expect(r.stdout).toMatch(/request_id=\S+/);

      const json = JSON.parse((await cli(env(), ['orders', 'history', cancelled, '--json'])).stdout);
      expect(json.events.map((e: { type: string; status_after: string }) => [e.type, e.status_after])).toEqual([
        ['OrderPlaced', 'placed'],
        ['OrderCancelled', 'cancelled'],
      ]);
      expect(json.events[1].metadata).toMatchObject({ actor: 'restaurant', partner_id: p.id, environment: 'live' });
    });

    it('when the order does not exist, then history says so and exits 1; --help explains the command', async () => {
      const r = await cli(env(), ['orders', 'history', 'ord_missing']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('no order with id ord_missing');
      expect((await cli(env(), ['orders', 'history', '--help'])).stdout).toContain('status after each');
    });

    it('when streams are listed and shown, then order and rider streams appear with their events', async () => {
      const list = JSON.parse((await cli(env(), ['streams', 'list', '--prefix', 'order-', '--json'])).stdout) as Array<{
        stream: string;
        last_revision: number;
      }>;
      expect(list).toEqual(
        expect.arrayContaining([
          { stream: `order-${delivered}`, last_revision: 6, events: 7 },
          { stream: `order-${cancelled}`, last_revision: 1, events: 2 },
        ]),
      );
      expect(list.every((s) => s.stream.startsWith('order-'))).toBe(true);
      const limited = await cli(env(), ['streams', 'list', '--limit', '1']);
      expect(limited.stdout.trim().split('\n')).toHaveLength(2); // header + one stream
      const table = await cli(env(), ['streams', 'list', '--prefix', 'rider-']);
      expect(table.stdout).toContain(`rider-${delivered}`);

      const shown = await cli(env(), ['streams', 'show', `order-${cancelled}`]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/#0 {2}position \d+ .* OrderPlaced/);
      expect(shown.stdout).toMatch(/#1 {2}position \d+ .* OrderCancelled/);
      const json = JSON.parse((await cli(env(), ['streams', 'show', `rider-${delivered}`, '--json'])).stdout);
      expect(json.events[0]).toMatchObject({ type: 'RiderLocationUpdated', data: { lat: 29.335, lng: 48.08 } });
      const missing = await cli(env(), ['streams', 'show', 'order-nope']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('stream order-nope has no events');
    });

    it('when streams are listed a page at a time with --after, then the pages hold every stream once, in order', async () => {
      const names = async (args: string[]) =>
        (
          JSON.parse((await cli(env(), ['streams', 'list', '--json', ...args])).stdout) as Array<{ stream: string }>
        ).map((s) => s.stream);
      const all = await names(['--prefix', 'order-']);
      expect(all).toEqual([`order-${delivered}`, `order-${cancelled}`].sort());
      const pages: string[][] = [];
      for (let after: string | undefined; pages.length < 5;) {
        const page = await names(['--prefix', 'order-', '--limit', '1', ...(after ? ['--after', after] : [])]);
        pages.push(page);
        if (page.length < 1) break;
        after = page.at(-1);
      }
      expect(pages).toEqual([[all[0]], [all[1]], []]);
      // Without a prefix the cursor still bounds the names from below.
      const table = await cli(env(), ['streams', 'list', '--after', all[0]!]);
      expect(table.code).toBe(0);
      expect(table.stdout).toContain(all[1]);
      expect(table.stdout).not.toContain(`${all[0]} `);
      expect((await cli(env(), ['streams', 'list', '--help'])).stdout).toContain('--after <stream>');
    });

    it('when the internal API is asked, then it reports progress and serves every document, in pages, to the admin only', async () => {
      const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
      await t.service.services.readModels.catchUp('orders-list');
      const status = await t.http.get('/internal/projections').set(admin);
      expect(status.status).toBe(200);
      const orders = status.body.data.find((s: { name: string }) => s.name === 'orders-list');
      expect(orders).toMatchObject({ collection: 'orders', lag: '0' });
      expect(orders.position).toBe(orders.head);

      const first = await t.http.get('/internal/read-models/orders?limit=1').set(admin);
      expect(first.body.data).toHaveLength(1);
      expect(first.body.pagination).toMatchObject({ limit: 1, has_more: true });
      const second = await t.http
        .get(`/internal/read-models/orders?limit=1&starting_after=${first.body.pagination.next_starting_after}`)
        .set(admin);
      expect(second.body.pagination).toEqual({ limit: 1, has_more: false, next_starting_after: null });
      expect([first.body.data[0].id, second.body.data[0].id].sort()).toEqual([delivered, cancelled].sort());
      expect(second.body.data[0]).toMatchObject({
        seq: expect.any(Number),
        versions: expect.any(Object),
        doc: expect.any(Object),
      });

      expect((await t.http.get('/internal/read-models/nope').set(admin)).status).toBe(404);
      expect((await t.http.get('/internal/read-models/orders')).status).toBe(401);
      expect((await t.http.post('/internal/projections/nope/rebuild').set(admin)).status).toBe(404);

      const before = (await t.http.get('/internal/read-models/rider_positions').set(admin)).body.data;
      expect(before).toHaveLength(1); // the delivered order's rider sent a position
      const rebuilt = await t.http.post('/internal/projections/rider-positions/rebuild').set(admin);
      expect(rebuilt.status).toBe(202);
      expect(await t.service.services.readModels.catchUp('rider-positions')).toBe(true);
      const after = (await t.http.get('/internal/read-models/rider_positions').set(admin)).body.data;
      expect(after.map((d: { id: string; doc: unknown; versions: unknown }) => [d.id, d.doc, d.versions])).toEqual(
        before.map((d: { id: string; doc: unknown; versions: unknown }) => [d.id, d.doc, d.versions]),
      );
    });
  },
);

describe(
  'audit verify and projections, embedded mode: a server process holds the read models',
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    let dataDir: string;
    let server: ChildService;
    let partner: { sandbox_key: string };
    const env = () => ({ DATA_DIR: dataDir, ADMIN_TOKEN });

    beforeAll(async () => {
      dataDir = tempDataDir();
      server = await startChildService(dataDir, { ADMIN_TOKEN, LOG_LEVEL: 'info' });
      const created = await cli({ DATA_DIR: dataDir }, ['partners', 'create', '--name', 'Audit', '--json']);
      expect(created.stderr).toBe('');
      partner = JSON.parse(created.stdout);
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${server.url}/v1/orders`, {
          method: 'POST',
          headers: { ...bearer(partner.sandbox_key), 'Idempotency-Key': newKey(), 'Content-Type': 'application/json' },
          body: JSON.stringify(orderBody({ reference: `audit-${i}` })),
        });
        expect(res.status).toBe(201);
        const id = ((await res.json()) as { data: { id: string } }).data.id;
        for (let step = 0; step < i; step++) {
          await fetch(`${server.url}/v1/sandbox/orders/${id}/advance`, {
            method: 'POST',
            headers: { ...bearer(partner.sandbox_key), 'Content-Type': 'application/json' },
            body: '{}',
          });
        }
      }
    }, PROCESS_TEST_TIMEOUT_MS);
    afterAll(async () => {
      await stopChildService(server);
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('when the served read models match the log, then verify prints a summary and exits 0', async () => {
      const r = await cli(env(), ['audit', 'verify', '--url', server.url]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(
        /^audit verify OK: \d+ read models equal the replay \(log up to position \d+; documents: orders 3, rider_positions 0/m,
      );
      expect(r.code).toBe(0);
      const json = JSON.parse((await cli(env(), ['audit', 'verify', '--url', server.url, '--json'])).stdout);
      expect(json).toMatchObject({ ok: true, differences: [], behind: [] });
    });

    it('when orders keep coming during the audit, then verify still passes: what moved on past its head is not compared', async () => {
      let placing = true;
      let placed = 0;
      const client = (async () => {
        while (placing) {
          const res = await fetch(`${server.url}/v1/orders`, {
            method: 'POST',
            headers: {
              ...bearer(partner.sandbox_key),
              'Idempotency-Key': newKey(),
              'Content-Type': 'application/json',
            },
            body: JSON.stringify(orderBody()),
          });
          expect(res.status).toBe(201);
          const id = ((await res.json()) as { data: { id: string } }).data.id;
          // An order placed before the head, changed after it: the served document has moved on.
          await fetch(`${server.url}/v1/sandbox/orders/${id}/advance`, {
            method: 'POST',
            headers: { ...bearer(partner.sandbox_key), 'Content-Type': 'application/json' },
            body: '{}',
          });
          placed++;
        }
      })();
      try {
        await waitFor(() => placed >= 5, { what: 'orders placing' });
        const r = await cli(env(), ['audit', 'verify', '--url', server.url, '--json']);
        expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, differences: [] });
        expect(r.code).toBe(0);
      } finally {
        placing = false;
        await client;
      }
    });

    it('when projections status and rebuild run, then they report each projection and the rebuilt model still verifies', async () => {
      const status = JSON.parse((await cli(env(), ['projections', 'status', '--url', server.url, '--json'])).stdout);
      expect(status.map((s: { name: string }) => s.name)).toEqual(
        expect.arrayContaining(['orders-list', 'rider-positions']),
      );
      expect((await cli(env(), ['projections', 'status', '--url', server.url])).stdout).toMatch(
        /^name\s+collection\s+position\s+checkpoint\s+head\s+lag/,
      );
      const rebuilt = await cli(env(), ['projections', 'rebuild', 'orders-list', '--url', server.url]);
      expect(rebuilt.stderr).toBe('');
      expect(rebuilt.stdout).toMatch(/rebuilt orders-list: at position \d+/);
      expect((await cli(env(), ['audit', 'verify', '--url', server.url])).code).toBe(0);
    });

    it('when the token is missing or the server is unreachable, then the command says so and exits 1', async () => {
      const noToken = await cli({ DATA_DIR: dataDir }, ['projections', 'status', '--url', server.url]);
      expect(noToken.code).toBe(1);
      expect(noToken.stderr).toContain('ADMIN_TOKEN is not set');
      const wrong = await cli({ DATA_DIR: dataDir, ADMIN_TOKEN: 'x'.repeat(32) }, [
        'audit',
        'verify',
        '--url',
        server.url,
      ]);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('refused ADMIN_TOKEN');
      const closed = await closedPort();
      const down = await cli(env(), ['projections', 'rebuild', '--url', `http://127.0.0.1:${closed}`]);
      expect(down.code).toBe(1);
      expect(down.stderr).toContain(`cannot reach the service at http://127.0.0.1:${closed} (ECONNREFUSED)`);
      const commands = [
        ['projections', 'rebuild'],
        ['projections', 'status'],
        ['audit', 'verify'],
        ['streams', 'list'],
        ['streams', 'show'],
      ];
      const helps = await Promise.all(commands.map((cmd) => cli(env(), [...cmd, '--help'])));
      helps.forEach((help, i) => {
        expect(help.code, commands[i]!.join(' ')).toBe(0);
        expect(help.stdout).toContain('Usage:');
      });
    });
  },
);

describe(
  'stream browser on the EventStoreDB adapter, over the gRPC stand-in (not EventStoreDB)',
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    let server: EsdbStandIn;
    let dataDir: string;
    const env = () => ({ DATA_DIR: dataDir, EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: server.url });

    beforeAll(async () => {
      server = await EsdbStandIn.start();
      dataDir = tempDataDir();
      const events = new EsdbEventStore(server.url);
      try {
        await events.append('order-esdb-1', [{ type: 'Tick', data: {}, metadata: { schema_version: 1 } }], {
          expectedRevision: 'no_stream',
        });
      } finally {
        await events.close();
      }
    });
    afterAll(async () => {
      await server?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('when the event store refuses a stream, then streams show and streams list say so in one line and exit 1', async () => {
      const shown = await cli(env(), ['streams', 'show', 'order-esdb-1']);
      expect(shown.stderr).toBe('');
      expect(shown.stdout).toMatch(/#0 {2}position \d+ .* Tick/);

      server.denyReads((streamId) => streamId === '$denied-stream' || streamId === '$streams');
      const denied = await cli(env(), ['streams', 'show', '$denied-stream']);
      expect(denied.code).toBe(1);
      expect(denied.stdout).toBe('');
      expect(denied.stderr).toBe(
        'error: the event store does not let this service read stream $denied-stream (access denied)\n',
      );
      const list = await cli(env(), ['streams', 'list']);
      expect(list.code).toBe(1);
      expect(list.stderr).toBe(
        'error: the event store does not let this service read stream $streams (access denied)\n',
      );
      expect((await cli(env(), ['streams', 'show', 'order-esdb-1'])).code).toBe(0);
    });
  },
);

const mongoUrl = requireMongoUrl('audit verify against MongoDB read models');
describe.skipIf(!mongoUrl)(
  'audit verify, READ_STORE=mongodb (read straight from MongoDB)',
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    let t: TestService;
    let client: MongoClient;
    let ids: string[];
    const dbName = uniqueDbName('audit');
    const mongoEnv = mongoReadStoreEnv(mongoUrl!, dbName);
    const verify = () => cli({ ...mongoEnv, DATA_DIR: t.dataDir }, ['audit', 'verify']);

    beforeAll(async () => {
      t = await startTestService({ env: { ...mongoEnv, ADMIN_TOKEN } });
      await t.service.services.catalog.import(MANUAL);
      const p = await t.partner();
      ids = [
        await placeAndMove(t, p.live, ['accept', 'start']),
        await placeAndMove(t, p.live, []),
        await placeAndMove(t, p.sandbox, ['cancel']),
      ];
      client = await new MongoClient(mongoUrl!).connect();
    });
    afterAll(async () => {
      await t.close();
      await client
        .db(dbName)
        .dropDatabase()
        .catch(() => undefined);
      await client.close();
    });

    it('when nothing was touched, then verify passes; when a document is tampered with, then it fails naming it', async () => {
      const clean = await verify();
      expect(clean.stderr).toBe('');
      expect(clean.stdout).toMatch(
        /audit verify OK: .*documents: orders 3, rider_positions 0.*served by MongoDB database/,
      );
      expect(clean.code).toBe(0);

      const db = client.db(dbName);
      await db
        .collection<{ _id: string }>('rm_orders')
        .updateOne({ _id: ids[0]! }, { $set: { 'doc.status': 'delivered', 'doc.order.pricing.total': 1 } });
      await db.collection<{ _id: string }>('rm_orders').deleteOne({ _id: ids[1]! });
      await db
        .collection<{ _id: string; seq: number; versions: Record<string, number>; doc: Record<string, unknown> }>(
          'rm_rider_positions',
        )
        .insertOne({
          _id: 'ord_forged',
          seq: 1,
          versions: { 'rider-ord_forged': 0 },
          doc: { order_id: 'ord_forged', location: { lat: 29, lng: 48, updated_at: '2026-01-01T00:00:00.000Z' } },
        });
      const tampered = await verify();
      expect(tampered.code).toBe(1);
      expect(tampered.stdout).toContain(`orders/${ids[0]}: differs`);
      expect(tampered.stdout).toContain('doc.status: replay "preparing", served "delivered"');
      expect(tampered.stdout).toMatch(/doc\.order\.pricing\.total: replay \d+, served 1/);
      expect(tampered.stdout).toContain(`orders/${ids[1]}: missing`);
      expect(tampered.stdout).toContain('rider_positions/ord_forged: extra');
      expect(tampered.stdout).toMatch(/audit verify FAILED: 3 difference\(s\) in 2 read model\(s\)/);
    });
  },
);

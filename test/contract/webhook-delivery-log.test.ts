// The webhook delivery log's storage: an index for each of its lists (with the `_id` tiebreak of the
// list's sort), and its 30-day retention, in the embedded store and on every MongoDB wire server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoReadModelStore } from '../../src/adapters/mongodb/read-model-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { indexedFields, querySql } from '../../src/adapters/sqlite/read-model-sql.js';
import type { IndexSpec, Query } from '../../src/ports/read-model-store.js';
import type { DeliveryState } from '../../src/domain/webhook/delivery-state.js';
import { DELIVERY_LOG_RETENTION, webhookDeliveries } from '../../projections/webhook-deliveries.js';
import { bearer, type TestPartner } from '../support/service.js';
import { mongoTestServers, uniqueDbName, mongoReadStoreEnv } from '../support/mongo-server.js';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from '../http/webhooks-fixture.js';
import { servedFromStore, verifyReadModels } from '../../src/application/audit/verify.js';
import { eventually } from './event-store.contract.js';

const DAY = 24 * 60 * 60 * 1000;
const indexes = webhookDeliveries.indexes ?? [];

/** The lists read from the delivery log, as src/webhooks queries them. */
const partner = { partner_id: 'ptr_1', environment: 'sandbox' };
const newestFirst = (where: Record<string, string>): Query => ({
  where: { ...partner, ...where },
  range: { field: 'created_at', gte: '2026-10-01T00:00:00.000Z' },
  sort: { field: 'created_at', direction: 'desc' },
  limit: 11,
});
const LISTS: Array<[string, Query]> = [
  ['the log', newestFirst({})],
  ['?status=', newestFirst({ status: 'failed' })],
  ['?type=', newestFirst({ event_type: 'order.created' })],
  ['?order_id=', newestFirst({ order_id: 'ord_1' })],
  [
    'the sender: unfinished deliveries by status, oldest first',
    { where: { status: 'retrying' }, sort: { field: 'created_at', direction: 'asc' }, limit: 500 },
  ],
];

/** An index serving a list: its equality fields (any order), then the sort field, then _id, all in the sort's direction or all reversed. */
function serves(spec: IndexSpec, q: Query): boolean {
  const keys = Object.entries(spec);
  const equal = Object.keys(q.where ?? {});
  if (keys.length !== equal.length + 2) return false;
  if (!keys.slice(0, equal.length).every(([f]) => equal.includes(f))) return false;
  const [[sortField, sortDir], [tie, tieDir]] = keys.slice(equal.length) as [[string, 1 | -1], [string, 1 | -1]];
  return sortField === q.sort.field && tie === '_id' && sortDir === tieDir;
}

describe('delivery log indexes', () => {
  it.each(LISTS)('when %s is read, then an index covers its filter, sort and _id tiebreak', (_name, q) => {
    expect(
      indexes.some((spec) => serves(spec, q)),
      JSON.stringify(q.where),
    ).toBe(true);
  });

  it('when the embedded store plans each list, then it searches an index on every filter and sorts nothing itself', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'delivery-log-'));
    const file = path.join(dir, 'rm.db');
    const store = new SqliteReadModelStore(file);
    store.ensureIndexes(webhookDeliveries.collection, indexes, { retention: DELIVERY_LOG_RETENTION });
    const db = new Database(file, { readonly: true });
    try {
      const columns = new Set(indexedFields([...indexes, { created_at: 1 }]));
      for (const [name, q] of LISTS) {
        const { sql, params } = querySql(webhookDeliveries.collection, columns, q);
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
          .map((r) => r.detail)
          .join(' | ');
        expect(plan, name).toMatch(/USING (COVERING )?INDEX/);
        for (const field of Object.keys(q.where ?? {})) expect(plan, `${name}: ${field}`).toContain(`f_${field}=?`);
        expect(plan, name).not.toContain('TEMP B-TREE');
      }
    } finally {
      db.close();
      void store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const server of mongoTestServers('delivery log indexes on MongoDB')) {
    it.skipIf(!server.url)(
      `when the MongoDB store ensures them, then each exists on doc fields, _id kept [${server.name}]`,
      async () => {
        const client = await MongoClient.connect(server.url!);
        const db: Db = client.db(uniqueDbName('delivery_indexes'));
        try {
          await new MongoReadModelStore(db).ensureIndexes(webhookDeliveries.collection, indexes, {
            retention: DELIVERY_LOG_RETENTION,
          });
          const made = (await db.collection(`rm_${webhookDeliveries.collection}`).listIndexes().toArray()).map((i) =>
            JSON.stringify(i.key),
          );
          for (const spec of indexes) {
            const key = Object.fromEntries(Object.entries(spec).map(([f, d]) => [f === '_id' ? '_id' : `doc.${f}`, d]));
            expect(made).toContain(JSON.stringify(key));
          }
        } finally {
          await db.dropDatabase();
          await client.close();
        }
      },
    );
  }
});

/**
 * Deliveries 31 and 29 days old, through the service: the purge the service runs deletes the first
 * from the read-model store (and the partner no longer sees it), and keeps the second.
 */
const backends: Array<{ name: string; env?: Record<string, string>; skip: boolean }> = [
  { name: 'embedded', skip: false },
  ...mongoTestServers('delivery log retention (READ_STORE=mongodb)').map((server) => ({
    name: `MongoDB [${server.name}]`,
    skip: !server.url,
    env: mongoReadStoreEnv(server.url ?? '', uniqueDbName('delivery_retention')),
  })),
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`delivery log retention: 30 days [${backend.name}]`, () => {
    let ts: WebhookService;
    let receiver: Receiver;
    let p: TestPartner;
    const sent: string[] = [];

    beforeAll(async () => {
      ts = await startWebhookService(backend.env ? { env: backend.env } : {});
      receiver = await startReceiver();
      p = await ts.partner();
      await register(ts, p.sandbox, receiver.url);
      // Two test events two days apart; each delivered before the clock moves on.
      for (let i = 0; i < 2; i++) {
        const res = await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        sent.push(res.body.data.id as string);
        await receiver.waitFor(i + 1);
        await ts.scheduler.runDue();
        ts.clock.advance(2 * DAY);
      }
    });
    afterAll(async () => {
      await receiver?.close();
      if (backend.env && ts) await ts.stores.mongo?.dropDatabase();
      await ts?.close();
    });

    const listed = async () =>
      ((await ts.http.get('/v1/webhooks/deliveries').set(bearer(p.sandbox))).body.data as Array<{ id: string }>).map(
        (d) => d.id,
      );
    const stored = (id: string) => ts.stores.readModels.get<DeliveryState>(webhookDeliveries.collection, id);

    it('when the purge runs with the first delivery 31 days old and the second 29, then the first is gone from the store and the list, and the second stays', async () => {
      const [older, newer] = sent as [string, string];
      expect(await listed()).toEqual([newer, older]);
      ts.clock.set(new Date(Date.parse((await stored(older))!.doc.created_at) + 31 * DAY));
      expect(Date.parse((await stored(newer))!.doc.created_at)).toBe(ts.clock.now().getTime() - 29 * DAY);

      expect(await ts.stores.readModels.purgeExpired!(ts.clock.now())).toMatchObject({
        [webhookDeliveries.collection]: 1,
      });
      expect(await stored(older)).toBeNull();
      expect((await stored(newer))?.doc.id).toBe(newer);
      expect(await listed()).toEqual([newer]);
      expect((await ts.http.get(`/v1/webhooks/deliveries/${newer}`).set(bearer(p.sandbox))).status).toBe(200);
    });
  });
}

describe('delivery log retention: the service purges on its own', () => {
  it('when a service starts 31 days after a delivery, then once its read models have caught up the delivery is purged, and the audit still finds nothing wrong', async () => {
    const first = await startWebhookService();
    const receiver = await startReceiver();
    try {
      const p = await first.partner();
      await register(first, p.sandbox, receiver.url);
      const res = await first.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
      expect(res.status).toBe(202);
      const id = res.body.data.id as string;
      await receiver.waitFor(1);
      await first.scheduler.runDue();
      await first.stop();

      const clock = first.clock;
      clock.advance(31 * DAY);
      const again = await startWebhookService({ dataDir: first.dataDir, clock });
      try {
        const stored = () => again.stores.readModels.get<DeliveryState>(webhookDeliveries.collection, id);
        await eventually(async () => (await stored()) === null);
        const report = await verifyReadModels(again.stores.events, servedFromStore(again.stores.readModels, 'test'), {
          now: clock.now(),
        });
        expect(report.differences).toEqual([]);
      } finally {
        await again.close();
      }
    } finally {
      await receiver.close();
    }
  });
});

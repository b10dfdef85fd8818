import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MongoClient, type Db } from 'mongodb';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { tableName } from '../../src/adapters/sqlite/read-model-sql.js';
import { MongoReadModelStore } from '../../src/adapters/mongodb/read-model-store.js';
import { mongoTestServers, uniqueDbName } from '../support/mongo-server.js';
import { readModelStoreContract } from './read-model-store.contract.js';

readModelStoreContract('embedded (SQLite, temporary)', async () => {
  const store = new SqliteReadModelStore();
  store.ensureIndexes('rows', [{ partner: 1, created_at: -1, _id: -1 }, { reference: 1 }]);
  return store;
});

// Every MongoDB wire server of the run (mongo-java-server and FerretDB), or a real MongoDB when MONGODB_URL is set.
const clients: MongoClient[] = [];
const dbs: Db[] = [];
const RETAIN_30_DAYS = { field: 'created_at', afterMs: 30 * 24 * 60 * 60 * 1000 };
for (const server of mongoTestServers('ReadModelStore contract')) {
  let client: MongoClient | undefined;
  const freshDb = async () => {
    if (!client) clients.push((client = await new MongoClient(server.url!).connect()));
    const db = client.db(uniqueDbName('rm_contract'));
    dbs.push(db);
    return db;
  };
  const openStore = async () => {
    const store = new MongoReadModelStore(await freshDb());
    // The indexes a read model asks for are created at start; the suite's queries run with them.
    await store.ensureIndexes('rows', [{ partner: 1, created_at: -1, _id: -1 }, { reference: 1 }]);
    return store;
  };
  readModelStoreContract(`MongoDB [${server.name}]`, () => openStore(), !server.url);

  describe.skipIf(!server.url)(`MongoDB read models: retention and claims [${server.name}]`, () => {
    it('when a collection has a retention, then documents carry its field as a BSON date, with a TTL index where the server has them', async () => {
      const db = await freshDb();
      const store = new MongoReadModelStore(db);
      await store.ensureIndexes('dated', [{ created_at: -1, _id: -1 }], { retention: RETAIN_30_DAYS });
      await store.put(
        'dated',
        { id: 'd1', seq: 1, versions: {}, doc: { created_at: '2026-11-21T10:00:00.000Z' } },
        null,
      );
      await store.put(
        'dated',
        { id: 'd1', seq: 2, versions: {}, doc: { created_at: '2026-11-21T10:00:00.000Z', status: 'x' } },
        1,
      );
      const row = await db.collection('rm_dated').findOne({ _id: 'd1' as never });
      expect(row?.retention_date).toEqual(new Date('2026-11-21T10:00:00.000Z'));
      const indexes = await db.collection('rm_dated').listIndexes().toArray();
      const onDate = indexes.filter((i) => JSON.stringify(i.key) === '{"retention_date":1}');
      expect(onDate).toHaveLength(1);
      if (server.name === 'FerretDB') {
        expect(store.hasTtlIndex('dated')).toBe(false);
        expect(onDate[0]!.expireAfterSeconds).toBeUndefined();
      } else {
        expect(store.hasTtlIndex('dated')).toBe(true);
        expect(onDate[0]!.expireAfterSeconds).toBe(30 * 24 * 60 * 60);
      }
    });

    it('when a retention is declared over documents stored without it, then they get their date and purge like the others', async () => {
      const db = await freshDb();
      const before = new MongoReadModelStore(db);
      await before.ensureIndexes('dated', []);
      for (const [id, at] of [
        ['old', '2026-10-01T00:00:00.000Z'],
        ['new', '2026-12-20T00:00:00.000Z'],
      ] as const) {
        await before.put('dated', { id, seq: 1, versions: {}, doc: { created_at: at } }, null);
      }
      const after = new MongoReadModelStore(db);
      await after.ensureIndexes('dated', [], { retention: RETAIN_30_DAYS });
      expect((await db.collection('rm_dated').findOne({ _id: 'old' as never }))?.retention_date).toEqual(
        new Date('2026-10-01T00:00:00.000Z'),
      );
      expect(await after.purgeExpired(new Date('2026-12-31T00:00:00.000Z'))).toEqual({ dated: 1 });
      expect((await after.all('dated')).map((d) => d.id)).toEqual(['new']);
    });

    it('when a writer died holding a claim, then its version is blocked until the lease runs out, then taken over', async () => {
      const db = await freshDb();
      const store = new MongoReadModelStore(db, { atomicUpdates: false, claimLeaseMs: 30_000 });
      await store.put('rows', { id: 'o1', seq: 1, versions: {}, doc: { n: 1 } }, null);
      const claims = db.collection<{ _id: string; scope: string; at: Date }>('write_claims');
      const claimOfSeq1 = JSON.stringify(['rows', 'o1', 1]);
      await claims.insertOne({ _id: claimOfSeq1, scope: 'rows', at: new Date() });
      expect(await store.put('rows', { id: 'o1', seq: 2, versions: {}, doc: { n: 2 } }, 1)).toBe(false);
      expect(await claims.countDocuments({ _id: claimOfSeq1 })).toBe(1);
      await claims.updateOne({ _id: claimOfSeq1 }, { $set: { at: new Date(Date.now() - 60_000) } });
      expect(await store.put('rows', { id: 'o1', seq: 2, versions: {}, doc: { n: 2 } }, 1)).toBe(false); // removes the stale claim
      expect(await store.put('rows', { id: 'o1', seq: 2, versions: {}, doc: { n: 2 } }, 1)).toBe(true);
      expect(await claims.countDocuments({})).toBe(0);
      expect((await store.get('rows', 'o1'))?.doc).toEqual({ n: 2 });
    });
  });
}

afterAll(async () => {
  for (const db of dbs) await db.dropDatabase().catch(() => undefined);
  for (const client of clients) await client.close();
});

describe('embedded read models: importRows (documents another thread projected)', () => {
  it('when serialised documents are imported, then they read, query and compare-and-set like written ones', async () => {
    const store = new SqliteReadModelStore();
    store.ensureIndexes('rows', [{ partner: 1, created_at: -1, _id: -1 }, { reference: 1 }]);
    await store.put(
      'rows',
      { id: 'a', seq: 1, versions: { 's-a': 0 }, doc: { partner: 'p1', created_at: '1', reference: 'old' } },
      null,
    );
    // One row names every indexed field; the other leaves `reference` out, so it is read from the JSON.
    store.importRows('rows', [
      [
        'a',
        2,
        '{"s-a":1}',
        '{"partner":"p1","created_at":"2","reference":"r-a"}',
        { partner: 'p1', created_at: '2', reference: 'r-a' },
      ],
      ['b', 1, '{"s-b":0}', '{"partner":"p1","created_at":"3","reference":"r-b"}', { partner: 'p1', created_at: '3' }],
    ]);
    expect(await store.get('rows', 'a')).toEqual({
      id: 'a',
      seq: 2,
      versions: { 's-a': 1 },
      doc: { partner: 'p1', created_at: '2', reference: 'r-a' },
    });
    expect(
      (
        await store.find('rows', {
          where: { reference: 'r-b' },
          sort: { field: 'created_at', direction: 'desc' },
          limit: 5,
        })
      ).map((d) => d.id),
    ).toEqual(['b']);
    expect(await store.count('rows', { partner: 'p1' })).toBe(2);
    expect(await store.put('rows', { id: 'a', seq: 3, versions: {}, doc: {} }, 1)).toBe(false);
    expect(await store.put('rows', { id: 'a', seq: 3, versions: {}, doc: {} }, 2)).toBe(true);
    await store.close();
  });
});

describe('embedded read models: pending writes', () => {
  it('a document written twice within the flush window is stored once, at its newer version; reads never wait for the window', async () => {
    vi.useFakeTimers();
    const dir = mkdtempSync(join(tmpdir(), 'read-models-'));
    const file = join(dir, 'read-models.db');
    const store = new SqliteReadModelStore(file);
    const rowsOnDisk = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare(`SELECT id, seq FROM ${tableName('rows')} ORDER BY id`).all() as Array<{
          id: string;
          seq: number;
        }>;
      } finally {
        db.close();
      }
    };
    try {
      await store.put('rows', { id: 'a', seq: 1, versions: { 's-a': 0 }, doc: { n: 1 } }, null);
      await vi.advanceTimersByTimeAsync(10);
      await store.put('rows', { id: 'a', seq: 2, versions: { 's-a': 1 }, doc: { n: 2 } }, 1);
      expect(rowsOnDisk()).toEqual([]);
      expect(await store.get('rows', 'a')).toMatchObject({ seq: 2, doc: { n: 2 } });
      await vi.advanceTimersByTimeAsync(60);
      expect(rowsOnDisk()).toEqual([{ id: 'a', seq: 2 }]);
      // A query commits what is pending first.
      await store.put('rows', { id: 'b', seq: 1, versions: { 's-b': 0 }, doc: { n: 3 } }, null);
      expect((await store.all('rows')).map((d) => d.id)).toEqual(['a', 'b']);
      expect(rowsOnDisk()).toEqual([
        { id: 'a', seq: 2 },
        { id: 'b', seq: 1 },
      ]);
    } finally {
      vi.useRealTimers();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The CatalogStore port, one set of expectations run against every adapter: embedded SQLite
// always, MongoDB on every wire server of the run (mongo-java-server and FerretDB; MONGODB_URL instead when set).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoCatalogStore } from '../../src/adapters/mongodb/catalog-store.js';
import { SqliteCatalogStore } from '../../src/adapters/sqlite/catalog-store.js';
import { openSqlite } from '../../src/adapters/sqlite/open.js';
import { loadDemoCatalog } from '../../src/catalog-data/demo.js';
import type { Catalog } from '../../src/domain/catalog/model.js';
import { serialiseCatalog, type CatalogStore } from '../../src/ports/catalog-store.js';
import { mongoTestServers, uniqueDbName } from '../support/mongo-server.js';
import { makeCatalog, makeStore } from './catalog-fixtures.js';

const demo = loadDemoCatalog();
const small: Catalog = makeCatalog({
  version: 'small-1',
  stores: [makeStore({ id: 'kw-one' }), makeStore({ id: 'kw-two', name: 'Second' })],
});

/** `open()` gives a fresh handle on the same underlying storage, as a second process would. */
function catalogStoreContract(name: string, setup: () => { open: () => CatalogStore; cleanup: () => Promise<void> }) {
  describe(`CatalogStore contract: ${name}`, () => {
    let env: ReturnType<typeof setup>;
    let store: CatalogStore;
    beforeAll(() => {
      env = setup();
      store = env.open();
    });
    afterAll(async () => {
      await store.close();
      await env.cleanup();
    });

    it('when nothing was saved, then load gives null and version gives null', async () => {
      expect(await store.load()).toBeNull();
      expect(await store.version()).toBeNull();
    });

    it('when a catalog is saved, then it loads back equal, with its content hash as version', async () => {
      const version = await store.save(demo);
      expect(version).toBe(serialiseCatalog(demo).version);
      expect(await store.version()).toBe(version);
      expect(await store.load()).toEqual(demo);
    });

    it('when another catalog is saved, then it replaces the first, and another handle sees the change', async () => {
      const other = env.open();
      const before = await other.version();
      const version = await store.save(small);
      expect(version).not.toBe(before);
      expect(await other.version()).toBe(version);
      expect(await other.load()).toEqual(small);
      await other.close();
    });

    it('when the same catalog is saved again, then the version is the same', async () => {
      expect(await store.save(small)).toBe(await store.version());
    });
  });
}

const dirs: string[] = [];
catalogStoreContract('SQLite (own file)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'catalog-store-'));
  dirs.push(dir);
  const file = path.join(dir, 'catalog.sqlite');
  return {
    open: () => new SqliteCatalogStore(file),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('SQLite catalog store details', () => {
  it('a stored document that is no longer a valid catalog fails loudly on load', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'catalog-store-'));
    const db = openSqlite(path.join(dir, 'shared.sqlite'));
    const store = new SqliteCatalogStore(db);
    await store.save(small);
    db.prepare("UPDATE catalog_current SET document = json_set(document, '$.stores[0].currency', 'XYZ')").run();
    await expect(store.load()).rejects.toThrow(/stores\[0\]\.currency/);
    await store.close();
    expect(db.open).toBe(true); // a shared connection belongs to its owner
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

for (const server of mongoTestServers('MongoDB catalog store')) {
  describe.skipIf(!server.url)(`MongoDB catalog store [${server.name}]`, () => {
    let client: MongoClient;
    beforeAll(async () => {
      client = await MongoClient.connect(server.url ?? '', { serverSelectionTimeoutMS: 5_000 });
    });
    afterAll(async () => {
      await client?.close();
    });

    catalogStoreContract(`MongoDB [${server.name}]`, () => {
      const db = () => client.db(dbName);
      const dbName = uniqueDbName('catalog');
      return {
        open: () => new MongoCatalogStore(db()), // init() only adds an index; the GC test below runs it
        cleanup: async () => {
          await db().dropDatabase();
        },
      };
    });

    it('keeps only the current and previous snapshots once the grace period has passed', async () => {
      const db: Db = client.db(uniqueDbName('catalog_gc'));
      const store = new MongoCatalogStore(db, { graceMs: 0 });
      await store.init();
      await store.save(small);
      await store.save(demo);
      const latest = { ...small, version: 'small-2' };
      await store.save(latest);
      expect(await db.collection('catalog_snapshots').countDocuments()).toBe(2);
      const storeDocs = await db.collection('catalog_snapshot_stores').countDocuments();
      expect(storeDocs).toBe(demo.stores.length + latest.stores.length);
      expect(await store.load()).toEqual(latest);
      await db.dropDatabase();
    });
  });
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

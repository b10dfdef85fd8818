import path from 'node:path';
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { MongoClient, type Db } from 'mongodb';
import { RateLimiterMemory, RateLimiterMongo, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { PartnerStore } from '../ports/partner-store.js';
import { openSqlite } from '../adapters/sqlite/open.js';
import { SqlitePartnerStore } from '../adapters/sqlite/partner-store.js';
import { MongoPartnerStore } from '../adapters/mongodb/partner-store.js';

/** The durable stores chosen by configuration. Shared by the server and the CLI. */
export interface Stores {
  partners: PartnerStore;
  /** Builds a per-minute limiter with the given budget on the configured backing store. */
  rateLimiterFactory(points: number): RateLimiterAbstract;
  readiness(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function openStores(config: Config): Promise<Stores> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const closers: Array<() => Promise<void> | void> = [];
  let sqlite: Database.Database | undefined;
  let mongo: { client: MongoClient; db: Db } | undefined;

  if (config.READ_STORE === 'mongodb') {
    const client = new MongoClient(config.MONGODB_URL!, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
    mongo = { client, db: client.db(config.MONGODB_DB) };
    closers.push(() => client.close());
  } else {
    sqlite = openSqlite(path.join(config.dataDir, 'service.db'), config.SQLITE_SYNCHRONOUS);
    const db = sqlite;
    closers.push(() => void db.close());
  }

  let partners: PartnerStore;
  if (mongo) {
    const store = new MongoPartnerStore(mongo.db);
    await store.init();
    partners = store;
  } else {
    partners = new SqlitePartnerStore(sqlite!);
  }

  const mongoDb = mongo?.db;
  return {
    partners,
    rateLimiterFactory: (points) =>
      mongoDb
        ? new RateLimiterMongo({ storeClient: mongo!.client, dbName: mongoDb.databaseName, tableName: 'rate_limits', keyPrefix: `rl${points}`, points, duration: 60 })
        : new RateLimiterMemory({ keyPrefix: `rl${points}`, points, duration: 60 }),
    readiness: async () => {
      await partners.ping();
      return { partners: 'ok' };
    },
    close: async () => {
      for (const close of closers.reverse()) await close();
    },
  };
}

import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Db } from 'mongodb';
import { RateLimiterMemory, RateLimiterMongo, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import { Refusal } from '../shared/refusal.js';
import type { PartnerStore } from '../ports/partner-store.js';
import type { CatalogStore } from '../ports/catalog-store.js';
import type { EventStore } from '../ports/event-store.js';
import type { ReadModelStore } from '../ports/read-model-store.js';
import type { WebhookEndpointStore } from '../ports/webhook-endpoint-store.js';
import { SqlitePartnerStore } from '../adapters/sqlite/partner-store.js';
import { SqliteCatalogStore } from '../adapters/sqlite/catalog-store.js';
import { SqliteEventStore } from '../adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../adapters/sqlite/read-model-store.js';
import { SqliteWebhookEndpointStore } from '../adapters/sqlite/webhook-endpoint-store.js';
import { PROJECTIONS, type AnyProjection } from '../../projections/index.js';
import { checkWebhookKey, EVENTS_FILE, newestSealedSecret, openEmbeddedFiles, prepareDataDir } from './data-dir.js';

/** The durable stores chosen by configuration. Shared by the server and the CLI. */
export interface Stores {
  events: EventStore;
  partners: PartnerStore;
  catalog: CatalogStore;
  readModels: ReadModelStore;
  webhookEndpoints: WebhookEndpointStore;
  /** Embedded mode's SQLite connection (service.db), or the MongoDB database. */
  sqlite?: Database.Database;
  mongo?: Db;
  /** Builds a per-minute limiter with the given budget on the configured backing store. */
  rateLimiterFactory(points: number): RateLimiterAbstract;
  /** A plain function, so the health route can hold it without its object. */
  readiness: () => Promise<Record<string, string>>;
  close(): Promise<void>;
}

export interface OpenStoresOptions {
  /** Where stores report what they skip or retry (the CLI leaves it out: console). */
  logger?: Logger;
  /** PRAGMA quick_check of the embedded SQLite files (default true; the CLI skips this scan of the whole log). */
  integrityCheck?: boolean;
  /** The webhook secrets key must open the stored secrets (default true; off only to reseal them). */
  webhookKeyCheck?: boolean;
}

/**
 * Opens the configured stores after checking DATA_DIR (data-dir.ts): a lost, foreign or damaged
 * file, or a webhook secrets key that opens none of the stored secrets, throws Refusal.
 */
export async function openStores(config: Config, options: OpenStoresOptions = {}): Promise<Stores> {
  prepareDataDir(config.dataDir);
  const files = openEmbeddedFiles(config, { integrity: options.integrityCheck ?? true });
  const keyCheck = options.webhookKeyCheck ?? true;
  const closers: Array<() => Promise<void> | void> = [];
  if (files.service) closers.push(() => void files.service!.close());
  const close = async () => {
    for (const fn of closers.splice(0).reverse()) await fn();
  };
  try {
    // The EventStoreDB and MongoDB adapters (and their drivers) load only when configured: a CLI
    // command in embedded mode then starts in about a third of the time.
    const events: EventStore =
      config.EVENT_STORE === 'eventstoredb'
        ? new (await import('../adapters/eventstoredb/event-store.js')).EsdbEventStore(
            config.EVENTSTORE_URL!,
            options.logger ? { logger: options.logger } : {},
          )
        : new SqliteEventStore({
            file: path.join(config.dataDir, EVENTS_FILE),
            synchronous: config.SQLITE_SYNCHRONOUS,
            ...(options.logger ? { logger: options.logger } : {}),
          });
    closers.push(() => events.close());

    if (config.READ_STORE === 'mongodb') {
      const [
        { MongoClient },
        { MongoPartnerStore },
        { MongoCatalogStore },
        { MongoReadModelStore },
        { MongoWebhookEndpointStore },
        { ensureRateLimitIndexes },
        { mongoStorageError },
      ] = await Promise.all([
        import('mongodb'),
        import('../adapters/mongodb/partner-store.js'),
        import('../adapters/mongodb/catalog-store.js'),
        import('../adapters/mongodb/read-model-store.js'),
        import('../adapters/mongodb/webhook-endpoint-store.js'),
        import('../adapters/mongodb/rate-limits.js'),
        import('../adapters/mongodb/storage-errors.js'),
      ]);
      let client: InstanceType<typeof MongoClient>;
      try {
        client = new MongoClient(config.MONGODB_URL!, { serverSelectionTimeoutMS: 5000 });
        await client.connect();
      } catch (err) {
        // Nothing can start without it (the server or a CLI command): one line, not a driver's stack.
        // The driver's message may quote the URL, credentials included: only its kind and code.
        throw new Refusal(
          `MongoDB (MONGODB_URL) cannot be reached (${mongoFailure(err)}). Start it, or correct MONGODB_URL.`,
        );
      }
      closers.push(() => client.close());
      const db = client.db(config.MONGODB_DB);
      const partners = new MongoPartnerStore(db);
      const catalog = new MongoCatalogStore(db);
      const readModels = new MongoReadModelStore(db);
      await Promise.all([
        partners.init(),
        catalog.init(),
        ensureRateLimitIndexes(db, RATE_LIMITS),
        ...PROJECTIONS.map((p) => readModels.ensureIndexes(p.collection, p.indexes ?? [], retentionOf(p))),
      ]);
      if (keyCheck) checkWebhookKey(config, await newestSealedSecret({ mongo: db }));
      return {
        events,
        partners,
        catalog,
        readModels,
        webhookEndpoints: new MongoWebhookEndpointStore(db),
        mongo: db,
        rateLimiterFactory: (points) => {
          const limiter = new RateLimiterMongo({
            storeClient: client,
            dbName: db.databaseName,
            tableName: RATE_LIMITS,
            keyPrefix: `rl${points}`,
            points,
            duration: 60,
            disableIndexesCreation: true,
          });
          // A refusal is a RateLimiterRes; MongoDB unreachable is the port's StorageUnavailableError (503).
          const consume = limiter.consume.bind(limiter);
          limiter.consume = (key, pointsToConsume, options) =>
            consume(key, pointsToConsume, options).catch((err: unknown) => {
              throw err instanceof RateLimiterRes ? err : mongoStorageError(err, 'MongoDB database');
            });
          return limiter;
        },
        readiness: readiness(events, partners),
        close,
      };
    }

    const sqlite = files.service!;
    const partners = new SqlitePartnerStore(sqlite);
    const readModels = new SqliteReadModelStore();
    closers.push(() => readModels.close());
    for (const p of PROJECTIONS) readModels.ensureIndexes(p.collection, p.indexes ?? [], retentionOf(p));
    const webhookEndpoints = new SqliteWebhookEndpointStore(sqlite);
    if (keyCheck) checkWebhookKey(config, await newestSealedSecret({ sqlite }));
    return {
      events,
      partners,
      catalog: new SqliteCatalogStore(sqlite),
      readModels,
      webhookEndpoints,
      sqlite,
      rateLimiterFactory: (points) => new RateLimiterMemory({ keyPrefix: `rl${points}`, points, duration: 60 }),
      readiness: readiness(events, partners),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The embedded event log alone, without the checks of openStores: for read-only diagnostics of a
 * directory refused for its identity (cli/context.ts, withEventLog). It opens no other file and
 * writes no id.
 */
export function openEmbeddedLogAlone(config: Config): EventStore {
  return new SqliteEventStore({ file: path.join(config.dataDir, EVENTS_FILE), synchronous: config.SQLITE_SYNCHRONOUS });
}

/** rate-limiter-flexible's counters; their indexes are made at start (see ensureRateLimitIndexes). */
const RATE_LIMITS = 'rate_limits';

/** The retention a read model declares (the delivery log keeps 30 days). */
const retentionOf = (p: AnyProjection) => (p.retention ? { retention: p.retention } : {});

function readiness(events: EventStore, partners: PartnerStore) {
  return async () => {
    await Promise.all([partners.ping(), events.headPosition()]);
    return { event_store: 'ok', partners: 'ok' };
  };
}

/**
 * A MongoDB connection failure without what it may quote of the URL: the error's name, and a network
 * code or the server's code name (AuthenticationFailed) when there is one.
 */
function mongoFailure(err: unknown): string {
  const name = err instanceof Error ? err.name : 'Error';
  const network = /\b(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNRESET|EAI_AGAIN)\b/.exec(
    err instanceof Error ? err.message : '',
  )?.[0];
  const codeName = (err as { codeName?: unknown }).codeName;
  const code = network ?? (typeof codeName === 'string' ? codeName : undefined);
  return code ? `${name}, ${code}` : name;
}

import { MongoServerError, type Db } from 'mongodb';

/** MongoDB's "NotImplemented": FerretDB's answer to `expireAfterSeconds`. */
const NOT_IMPLEMENTED = 238;

/**
 * The indexes of rate-limiter-flexible's `RateLimiterMongo` collection, made here at start (the
 * limiters are built with `disableIndexesCreation: true`): the library makes its TTL index first and
 * stops at its failure, so on a server without TTL indexes (FerretDB) it never made the unique index
 * on `key` that keeps the first requests of a key on one counter. Same keys and options as the
 * library's, so the index names match. Without TTL nothing piles up: the limiter rewrites an expired
 * counter in place, so the collection holds one document per key and budget.
 */
export async function ensureRateLimitIndexes(db: Db, collection: string): Promise<{ ttl: boolean }> {
  const counters = db.collection(collection);
  await counters.createIndex({ key: 1 }, { unique: true });
  try {
    await counters.createIndex({ expire: -1 }, { expireAfterSeconds: 0 });
    return { ttl: true };
  } catch (err) {
    if (err instanceof MongoServerError && err.code === NOT_IMPLEMENTED) return { ttl: false };
    throw err;
  }
}

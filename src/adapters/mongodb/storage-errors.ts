import { MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { StorageUnavailableError } from '../../ports/event-store.js';

/** MongoDB's OutOfDiskSpace: the server cannot write its files. */
const OUT_OF_DISK_SPACE = 14031;

/**
 * MongoDB's "cannot be reached" (no server to select, a dropped or timed-out connection, which
 * MongoNetworkTimeoutError is a kind of) and "disk full" errors as the port's
 * StorageUnavailableError, so a request answers 503 instead of 500; any other error unchanged.
 */
export function mongoStorageError(err: unknown, store: string): unknown {
  if (err instanceof StorageUnavailableError) return err;
  if (err instanceof MongoServerSelectionError || err instanceof MongoNetworkError)
    return new StorageUnavailableError(store, 'unreachable', { cause: err });
  if (err instanceof MongoServerError && err.code === OUT_OF_DISK_SPACE)
    return new StorageUnavailableError(store, 'full', { cause: err });
  return err;
}

/** Runs a MongoDB call with its storage failures mapped by `mongoStorageError`. */
export async function mongoCall<T>(store: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw mongoStorageError(err, store);
  }
}

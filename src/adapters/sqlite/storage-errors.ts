import { StorageUnavailableError } from '../../ports/event-store.js';

/**
 * SQLite's and the file system's "storage full or failing" errors as the port's
 * StorageUnavailableError; any other error unchanged. SQLITE_FULL also comes from a database
 * that reached its max_page_count; ENOSPC and EIO from fsync and other file calls.
 */
export function storageError(err: unknown, store: string): unknown {
  if (err instanceof StorageUnavailableError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return err;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT')
    return new StorageUnavailableError(store, 'full', { cause: err });
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO' || code === 'EROFS')
    return new StorageUnavailableError(store, 'io', { cause: err });
  return err;
}

import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Durability } from './event-store-group-commit.js';

// fdatasync, as SQLite itself uses for the log: the frames and the file size, without waiting for
// a journal commit of the inode's times.
const fdatasync = promisify(fs.fdatasync);

/**
 * synchronous=FULL without blocking the event loop. In WAL mode a commit appends its frames to
 * the `-wal` file, and FULL adds an fsync of that file before the commit returns. Here the
 * connection runs at NORMAL (frames written, not synced) and this fsync of the same file runs on
 * libuv's thread pool: once it returns, every commit made before it is on disk exactly as with
 * FULL (fsync covers the file, whichever descriptor wrote it). SQLite at NORMAL still syncs the log
 * before each checkpoint, so the database itself is never at risk; only acknowledgement waits.
 *
 * `file` is undefined for in-memory or temporary databases (nothing to sync): then it returns
 * undefined, and the caller keeps SQLite's own FULL.
 */
export function walFsync(file: string | undefined, head: () => bigint): Durability | undefined {
  if (file === undefined) return undefined;
  // The -wal file exists once a WAL connection has read the database (the schema above did).
  const wal = `${file}-wal`;
  if (!fs.existsSync(wal)) return undefined;
  let fd: number | null = fs.openSync(wal, 'r+');
  syncDirectory(path.dirname(path.resolve(file)));
  return {
    head,
    sync: () => (fd === null ? Promise.reject(new Error('the event store is closed')) : fdatasync(fd)),
    close: () => {
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
}

/** The -wal file's directory entry must be durable too (it may have just been created). */
function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

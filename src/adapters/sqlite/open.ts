import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';

export type Synchronous = 'FULL' | 'NORMAL';

/** How long an opener waits for another process's lock (busy timeout, and the WAL switch below). */
export const LOCK_WAIT_MS = 5000;

/** Opens a SQLite file in WAL mode; several processes (server and CLI) may open the same file. */
export function openSqlite(file: string, synchronous: Synchronous = 'FULL'): Database.Database {
  createPrivately(file);
  // timeout: another process holding the write lock makes us wait instead of failing at once.
  const db = new Database(file, { timeout: LOCK_WAIT_MS });
  useWal(db);
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('foreign_keys = ON');
  return db;
}

/**
 * Creates a missing database file empty, readable by its owner only (mode 0600; its directory 0700
 * when made here), before SQLite opens it: SQLite would make it 0644, and gives its -wal and -shm
 * files the mode of the database file. An empty file is a new database to SQLite.
 */
export function createPrivately(file: string): void {
  if (file === '' || file === ':memory:') return;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, 'a', 0o600));
}

/**
 * `PRAGMA journal_mode = WAL`, waiting out another connection's write. While one holds the write
 * lock of a file still in rollback mode (a second process creating the same new file), SQLite
 * answers this pragma SQLITE_BUSY at once, without calling the busy handler; so it is retried here,
 * for as long as the busy timeout would have waited.
 */
export function useWal(db: Database.Database): void {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      // Opening is synchronous: a short blocking pause, as SQLite's own busy handler makes.
      Atomics.wait(PAUSE, 0, 0, 10);
    }
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';

export type Synchronous = 'FULL' | 'NORMAL';

/** Opens a SQLite file in WAL mode; several processes (server and CLI) may open the same file. */
export function openSqlite(file: string, synchronous: Synchronous = 'FULL'): Database.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  // Another process holding the write lock makes us wait instead of failing at once.
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
}

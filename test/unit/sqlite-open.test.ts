import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useWal } from '../../src/adapters/sqlite/open.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sqlite-open-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Another connection, on its own thread, holding the write lock of `file` (rollback mode) for `ms`. */
async function holdWriteLock(file: string, ms: number): Promise<Worker> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const Database = require(workerData.driver);
     const db = new Database(workerData.file);
     db.exec('CREATE TABLE IF NOT EXISTS t (x)');
     db.exec('BEGIN IMMEDIATE');
     db.exec('INSERT INTO t VALUES (1)');
     parentPort.postMessage('locked');
     setTimeout(() => { db.exec('COMMIT'); db.close(); }, workerData.ms);`,
    { eval: true, workerData: { file, ms, driver: createRequire(import.meta.url).resolve('better-sqlite3') } },
  );
  await new Promise((resolve) => worker.once('message', resolve));
  return worker;
}

describe('useWal: switching a file another process is writing to WAL', () => {
  it('when another connection holds the write lock of a rollback-mode file, then the switch waits for it instead of failing at once', async () => {
    const file = join(dir, 'new.db');
    const worker = await holdWriteLock(file, 150);
    const db = new Database(file, { timeout: 5000 });
    try {
      // SQLite itself answers SQLITE_BUSY at once here, busy timeout or not.
      expect(() => db.pragma('journal_mode = WAL')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
      useWal(db);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
      await worker.terminate();
    }
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WalCheckpointer } from '../../src/adapters/sqlite/event-store-checkpointer.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A WAL database with a table `t`, whose log only the test's checkpoints copy. */
function walDatabase() {
  const file = join(dir, 'w.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (v TEXT)');
  return { file, db };
}

describe('WalCheckpointer', () => {
  it('when a WAL database has frames in its log, then a checkpoint on the worker copies all of them', async () => {
    const { file, db } = walDatabase();
    for (let i = 0; i < 50; i++) db.prepare('INSERT INTO t (v) VALUES (?)').run(`row ${i}`);
    const checkpointer = new WalCheckpointer(file, {
      intervalMs: 60_000,
      onError: (err) => {
        throw err;
      },
    });
    const result = await checkpointer.checkpointNow();
    expect(result.log).toBeGreaterThan(0);
    expect(result.checkpointed).toBe(result.log);
    await checkpointer.close();
    db.close();
  });

  it('when the log passes restartFrames, then the checkpoint also restarts it (every row kept), and the next write begins it again from the top', async () => {
    const { file, db } = walDatabase();
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 40; i++) insert.run(`row ${i}`);
    const checkpointer = new WalCheckpointer(file, {
      intervalMs: 60_000,
      restartFrames: 20,
      onError: (err) => {
        throw err;
      },
    });
    const restarted = await checkpointer.checkpointNow();
    expect(restarted.log).toBeGreaterThanOrEqual(40);
    insert.run('after the restart');
    const after = await checkpointer.checkpointNow();
    expect(after.log).toBeLessThan(5); // one commit's frames, from the top
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 41 });
    await checkpointer.close();
    db.close();
  });

  it('when a reader keeps its snapshot (a backup), then a restart gives up soon and writers are not held back', async () => {
    const { file, db } = walDatabase();
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 40; i++) insert.run(`row ${i}`);
    const reader = new Database(file);
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT count(*) FROM t').get(); // the snapshot is taken here, and kept
    const checkpointer = new WalCheckpointer(file, {
      intervalMs: 60_000,
      restartFrames: 20,
      onError: (err) => {
        throw err;
      },
    });
    // Writes go on while the restart is pending: each may wait a second for the write lock, far
    // longer than the restart may hold it (a restart waiting out the reader held it for 5 s).
    db.pragma('busy_timeout = 1000');
    let pending = true;
    const restart = checkpointer.checkpointNow().finally(() => (pending = false));
    let written = 0;
    while (pending) {
      insert.run(`during ${written++}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const result = await restart;
    expect(result.busy).toBe(1);
    expect(written).toBeGreaterThan(0);
    reader.prepare('COMMIT').run();
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 40 + written });
    await checkpointer.close();
    reader.close();
    db.close();
  });

  it("when the file cannot be checkpointed, then the error is reported (the store then goes back to SQLite's own checkpoints)", async () => {
    const file = join(dir, 'not-a-database.db');
    writeFileSync(file, 'this is not a SQLite database, it is text long enough to have a header'.repeat(20));
    let report!: (err: Error) => void;
    const reported = new Promise<Error>((resolve) => (report = resolve));
    const checkpointer = new WalCheckpointer(file, { intervalMs: 10, onError: (err) => report(err) });
    expect((await reported).message).toMatch(/WAL checkpoint failed: file is not a database/);
    await checkpointer.close();
  });
});

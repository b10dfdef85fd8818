import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/adapters/sqlite/event-store-group-commit.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { WrongExpectedRevisionError } from '../../src/ports/event-store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ev = (type: string) => ({ type, data: { n: type }, metadata: {} });

describe('GroupCommit', () => {
  it('commits the writes of one event-loop turn in one transaction and settles each after the commit', async () => {
    const db = new Database(join(dir, 'g.db'));
    db.exec('CREATE TABLE t (v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    let commits = 0;
    const group = new GroupCommit(db, () => commits++);
    const seenAtSettle: number[] = [];
    const writes = ['a', 'b', 'c'].map((v) => group.write(() => insert.run(v).changes).then(() => seenAtSettle.push(commits)));
    await Promise.all(writes);
    expect(commits).toBe(1);
    expect(seenAtSettle).toEqual([1, 1, 1]);
    expect(db.prepare('SELECT v FROM t ORDER BY rowid').pluck().all()).toEqual(['a', 'b', 'c']);
    db.close();
  });

  it('rolls back only the write that throws; the others of the batch commit', async () => {
    const db = new Database(join(dir, 'g.db'));
    db.exec('CREATE TABLE t (v TEXT UNIQUE)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const group = new GroupCommit(db, () => undefined);
    const results = await Promise.allSettled([
      group.write(() => insert.run('a')),
      group.write(() => {
        insert.run('b');
        throw new Error('refused');
      }),
      group.write(() => insert.run('a')), // unique violation
      group.write(() => insert.run('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(db.prepare('SELECT v FROM t ORDER BY rowid').pluck().all()).toEqual(['a', 'c']);
    db.close();
  });

  it('rejects queued writes when the database is closed before the commit', async () => {
    const db = new Database(join(dir, 'g.db'));
    db.exec('CREATE TABLE t (v TEXT)');
    const group = new GroupCommit(db, () => undefined);
    const pending = group.write(() => 1);
    db.close();
    await expect(pending).rejects.toThrow(/closed/);
  });
});

describe('SqliteEventStore with group commit', () => {
  it('concurrent appends to one stream: each expected revision is checked against the writes before it in the batch', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    const [first, second, stale] = await Promise.allSettled([
      store.append('s-1', [ev('A')], { expectedRevision: 'no_stream' }),
      store.append('s-1', [ev('B')], { expectedRevision: 0 }),
      store.append('s-1', [ev('C')], { expectedRevision: 0 }),
    ]);
    expect(first.status).toBe('fulfilled');
    expect(second.status).toBe('fulfilled');
    expect(stale.status).toBe('rejected');
    expect((stale as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect((await store.readStream('s-1')).map((e) => e.type)).toEqual(['A', 'B']);
    await store.close();
  });

  it('close() commits appends that are still queued', async () => {
    const file = join(dir, 'events.db');
    const store = new SqliteEventStore({ file });
    const appended = store.append('s-2', [ev('A')], { expectedRevision: 'any' });
    await store.close();
    await expect(appended).resolves.toMatchObject({ nextExpectedRevision: 0 });
    const reopened = new SqliteEventStore({ file });
    expect((await reopened.readStream('s-2')).map((e) => e.type)).toEqual(['A']);
    await reopened.close();
  });
});

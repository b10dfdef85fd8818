import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit, type Durability } from '../../src/adapters/sqlite/event-store-group-commit.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { StorageUnavailableError, WrongExpectedRevisionError } from '../../src/ports/event-store.js';
import { manualDeferral } from '../support/manual-deferral.js';

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
    const writes = ['a', 'b', 'c'].map((v) =>
      group.write(() => insert.run(v).changes).then(() => seenAtSettle.push(commits)),
    );
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

  describe('with durability (synchronous=FULL: the fsync runs off the event loop)', () => {
    /** A sync the test releases by hand, so "before" and "after the fsync" are observable. */
    function manualSync(db: Database.Database): Durability & { release(error?: Error): void; calls: number } {
      let pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
      const d = {
        calls: 0,
        head: () => BigInt((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n),
        sync: () => {
          d.calls++;
          return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
        },
        close: () => undefined,
        release(error?: Error) {
          const p = pending;
          pending = [];
          for (const w of p) {
            if (error) w.reject(error);
            else w.resolve();
          }
        },
      };
      return d;
    }
    const tick = () => new Promise((r) => setImmediate(r));
    /** A table `t`, its insert, a manual sync and a group commit over them. */
    function durableGroup(onCommit: () => void = () => undefined) {
      const db = new Database(join(dir, 'g.db'));
      db.exec('CREATE TABLE t (v TEXT)');
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      const durability = manualSync(db);
      const timer = manualDeferral(10); // the deferred sync of 'ordered'-only commits
      return { db, insert, durability, timer, group: new GroupCommit(db, onCommit, durability, timer.deferral) };
    }

    it('when a write has committed but its fsync has not returned, then it is not acknowledged and readers see only the older head', async () => {
      let woken = 0;
      const { db, insert, durability, group } = durableGroup(() => woken++);
      insert.run('old');
      let acked = false;
      const write = group.write(() => insert.run('new')).then(() => (acked = true));
      await tick();
      expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 }); // committed
      expect(acked).toBe(false);
      expect(woken).toBe(0);
      expect(group.visibleHead()).toBe(1n); // the head before the commit
      durability.release();
      await write;
      expect(acked).toBe(true);
      expect(woken).toBe(1);
      expect(group.visibleHead()).toBeNull();
      db.close();
    });

    it('when writes are requested while an fsync runs, then they commit together when it returns, share the next fsync and are acknowledged after it', async () => {
      const { db, insert, durability, group } = durableGroup();
      const order: string[] = [];
      const first = group.write(() => insert.run('a')).then(() => order.push('a'));
      await tick();
      const later = ['b', 'c'].map((v, i) =>
        new Promise((r) => setTimeout(r, i)).then(() => group.write(() => insert.run(v))).then(() => order.push(v)),
      );
      await new Promise((r) => setTimeout(r, 5)); // b and c are requested in different turns
      await tick();
      expect(durability.calls).toBe(1); // b and c wait for the fsync in flight to end...
      expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 }); // ...uncommitted
      expect(group.visibleHead()).toBe(0n);
      const changes = db.prepare('SELECT total_changes() AS n');
      const before = (changes.get() as { n: number }).n;
      durability.release();
      await first;
      await tick();
      expect(order).toEqual(['a']);
      expect(durability.calls).toBe(2);
      expect((changes.get() as { n: number }).n - before).toBe(2); // committed once the fsync returned
      expect(group.visibleHead()).toBe(1n); // a is durable, b and c are not yet
      durability.release();
      await Promise.all(later);
      expect(order).toEqual(['a', 'b', 'c']);
      expect(group.visibleHead()).toBeNull();
      db.close();
    });

    it("when a write asks for 'ordered', then it is answered at its commit and the next durable write's fsync covers it: one fsync for both", async () => {
      const { db, insert, durability, timer, group } = durableGroup();
      let claimAnswered = false;
      const claim = group.write(() => insert.run('claim'), true).then(() => (claimAnswered = true));
      await tick();
      await claim;
      expect(claimAnswered).toBe(true);
      expect(durability.calls).toBe(0); // no fsync of its own yet
      expect(timer.waiting).toBe(1); // only a deferred one
      expect(group.visibleHead()).toBe(0n); // and log readers wait for one
      // The write that depends on it is acknowledged only after an fsync that covers both.
      let orderAnswered = false;
      const order = group.write(() => insert.run('order')).then(() => (orderAnswered = true));
      await tick();
      expect(durability.calls).toBe(1);
      expect(timer.waiting).toBe(0); // that fsync covers the claim: the deferred one is dropped
      expect(orderAnswered).toBe(false);
      durability.release();
      await order;
      expect(durability.calls).toBe(1);
      expect(group.visibleHead()).toBeNull();
      db.close();
    });

    it("when no durable write follows an 'ordered' one, then its deferred fsync makes it durable and visible", async () => {
      const { db, insert, durability, timer, group } = durableGroup();
      await group.write(() => insert.run('accepted'), true);
      expect(group.visibleHead()).toBe(0n);
      timer.due();
      expect(durability.calls).toBe(1);
      durability.release();
      await tick();
      expect(group.visibleHead()).toBeNull();
      expect(timer.waiting).toBe(0);
      db.close();
    });

    it("when a reader asks for a sync now (syncNow), then the 'ordered' commits' deferred fsync starts at once", async () => {
      const { db, insert, durability, timer, group } = durableGroup();
      await group.write(() => insert.run('accepted'), true);
      expect(timer.waiting).toBe(1);
      group.syncNow(1n);
      expect(durability.calls).toBe(1);
      expect(timer.waiting).toBe(0);
      durability.release();
      await tick();
      expect(group.visibleHead()).toBeNull();
      db.close();
    });

    it('when syncNow is asked for a position the fsync in flight does not cover, then the next fsync starts as soon as it ends, not after the deferral', async () => {
      const { db, insert, durability, timer, group } = durableGroup();
      const first = group.write(() => insert.run('a'));
      await tick();
      await group.write(() => insert.run('accepted'), true); // committed while the first fsync runs
      group.syncNow(1n); // covered by the fsync in flight (it began at 1): nothing more
      group.syncNow(2n);
      expect(durability.calls).toBe(1);
      durability.release();
      await first;
      await tick();
      expect(durability.calls).toBe(2);
      expect(timer.waiting).toBe(0);
      durability.release();
      await tick();
      expect(group.visibleHead()).toBeNull();
      db.close();
    });

    it('when syncNow is asked for a position the fsync in flight covers, then no other fsync is started for it', async () => {
      const { db, insert, durability, timer, group } = durableGroup();
      const first = group.write(() => insert.run('a'));
      await tick();
      group.syncNow(1n);
      durability.release();
      await first;
      await tick();
      expect(durability.calls).toBe(1);
      expect(timer.waiting).toBe(0);
      db.close();
    });

    it("when the fsync covering an 'ordered' write fails, then the write depending on it is refused, not committed", async () => {
      const { db, insert, durability, timer, group } = durableGroup();
      await group.write(() => insert.run('claim'), true);
      timer.due();
      const order = group.write(() => insert.run('order')); // held while the claim's fsync runs
      await tick();
      durability.release(new Error('EIO')); // the claim's fsync fails: the claim was already answered
      await expect(order).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['claim']);
      expect(durability.calls).toBe(1);
      db.close();
    });

    it("when an 'ordered' write is requested while an fsync runs, then it is committed and answered without waiting for that fsync", async () => {
      const { db, insert, durability, timer, group } = durableGroup();
      const first = group.write(() => insert.run('a'));
      await tick();
      expect(durability.calls).toBe(1);
      let claimAnswered = false;
      const claim = group.write(() => insert.run('claim'), true).then(() => (claimAnswered = true));
      await tick();
      await claim;
      expect(claimAnswered).toBe(true); // the first fsync has not returned
      expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
      durability.release();
      await first;
      await tick();
      expect(durability.calls).toBe(1); // the claim waits for a durable write or its deferred fsync
      expect(group.visibleHead()).toBe(1n);
      timer.due();
      expect(durability.calls).toBe(2);
      durability.release();
      await tick();
      expect(group.visibleHead()).toBeNull();
      db.close();
    });

    it("when the store drains, then an 'ordered' commit waiting for its deferred fsync is synced at once", async () => {
      const { db, insert, durability, timer, group } = durableGroup();
      await group.write(() => insert.run('claim'), true);
      const drained = group.drain();
      expect(durability.calls).toBe(1);
      expect(timer.waiting).toBe(0);
      durability.release();
      await drained;
      expect(group.visibleHead()).toBeNull();
      db.close();
    });

    describe('whenDurable: an answer resting on writes it read, not made', () => {
      const settledFlag = (p: Promise<unknown>) => {
        const seen = { settled: false };
        p.then(
          () => (seen.settled = true),
          () => (seen.settled = true),
        );
        return seen;
      };

      it("when an 'ordered' commit waits for its deferred fsync, then it is synced at once and the wait ends with that fsync", async () => {
        const { db, insert, durability, timer, group } = durableGroup();
        await group.write(() => insert.run('claim'), true);
        expect(durability.calls).toBe(0);
        const durable = group.whenDurable();
        const seen = settledFlag(durable);
        await tick();
        expect(durability.calls).toBe(1);
        expect(timer.waiting).toBe(0);
        expect(seen.settled).toBe(false);
        durability.release();
        await durable;
        expect(durability.calls).toBe(1);
        db.close();
      });

      it('when the fsync of a durable write is running, then the wait ends with it, and a later wait needs no fsync', async () => {
        const { db, insert, durability, group } = durableGroup();
        const write = group.write(() => insert.run('order'));
        await tick();
        expect(durability.calls).toBe(1);
        const durable = group.whenDurable();
        const seen = settledFlag(durable);
        await tick();
        expect(seen.settled).toBe(false);
        durability.release();
        await Promise.all([write, durable]);
        await group.whenDurable();
        expect(durability.calls).toBe(1);
        db.close();
      });

      it('when another process has committed since our last fsync, then one fsync, shared by every waiter, covers it', async () => {
        const { db, insert, durability, group } = durableGroup();
        const write = group.write(() => insert.run('ours'));
        await tick();
        durability.release();
        await write;
        insert.run('theirs'); // another connection's commit: none of this group's writes
        const waits = [group.whenDurable(), group.whenDurable(), group.whenDurable()];
        const seen = settledFlag(Promise.all(waits));
        await tick();
        expect(durability.calls).toBe(2);
        expect(seen.settled).toBe(false);
        // A write requested meanwhile is held for the next fsync, as during any other.
        const held = group.write(() => insert.run('held'));
        await tick();
        expect(durability.calls).toBe(2);
        durability.release();
        await Promise.all(waits);
        await tick();
        expect(durability.calls).toBe(3);
        durability.release();
        await held;
        db.close();
      });

      it("when an 'ordered' commit comes during its fsync after another process's, then readers' limit does not move back when it ends", async () => {
        const { db, insert, durability, group } = durableGroup();
        insert.run('theirs'); // head 1
        const durable = group.whenDurable(); // an fsync that covers up to 1
        await tick();
        insert.run('theirs again'); // head 2: another process's, acknowledged after its own fsync
        await group.write(() => insert.run('ours'), true); // answered at its commit
        expect(group.visibleHead()).toBe(2n); // every commit but ours
        durability.release();
        await durable;
        expect(group.visibleHead()).toBe(2n);
        db.close();
      });

      it('when the fsync it waits for fails, then it fails with the storage error, and so does every later wait', async () => {
        const { db, insert, durability, group } = durableGroup();
        const write = group.write(() => insert.run('order'));
        await tick();
        const durable = group.whenDurable();
        durability.release(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
        await expect(write).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(durable).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(group.whenDurable()).rejects.toThrow(/restarts: an fsync of its log failed \(EIO\)/);
        expect(durability.calls).toBe(1); // not retried: a second fsync may not report the lost pages
        db.close();
      });
    });

    it('when the fsync fails, then the writes it covered are rejected (their durability is unknown) and readers see none of them', async () => {
      const { db, insert, durability, group } = durableGroup();
      const write = group.write(() => insert.run('a'));
      await tick();
      durability.release(new Error('EIO'));
      const refused = await write.catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(StorageUnavailableError);
      expect((refused as StorageUnavailableError).reason).toBe('unsynced');
      expect((refused as Error).cause).toEqual(new Error('EIO'));
      expect(group.visibleHead()).toBe(0n);
      db.close();
    });

    it('when an fsync has failed, then every later write is refused without a commit or an fsync, until a restart', async () => {
      const { db, insert, durability, group } = durableGroup();
      const first = group.write(() => insert.run('a'));
      await tick();
      durability.release(new Error('EIO'));
      await expect(first).rejects.toBeInstanceOf(StorageUnavailableError);
      // The disk would now report clean: nothing is written on that word.
      for (const ordered of [false, true])
        await expect(group.write(() => insert.run('later'), ordered)).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['a']);
      expect(durability.calls).toBe(1);
      await group.drain(); // close() does not wait for an fsync that will not come
      db.close();
    });

    it('when writes commit while the fsync that fails runs, then they are refused too, not acknowledged by a later fsync', async () => {
      const { db, insert, durability, group } = durableGroup();
      const first = group.write(() => insert.run('a'));
      await tick();
      expect(durability.calls).toBe(1);
      // An 'ordered' write commits during the fsync, and the durable one queued beside it with it.
      const durable = group.write(() => insert.run('b'));
      const claim = group.write(() => insert.run('claim'), true);
      await claim;
      expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['a', 'b', 'claim']);
      durability.release(new Error('EIO'));
      await expect(first).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(durable).rejects.toBeInstanceOf(StorageUnavailableError);
      await tick();
      expect(durability.calls).toBe(1);
      expect(group.visibleHead()).toBe(0n);
      db.close();
    });
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

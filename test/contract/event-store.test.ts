import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import ts from 'typescript';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EsdbEventStore } from '../../src/adapters/eventstoredb/event-store.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import type { EventStore, RecordedEvent } from '../../src/ports/event-store.js';
import { ev, eventually, eventStoreContract, type EventStoreFixture } from './event-store.contract.js';
import { deferred } from '../support/deferred.js';
import { manualDeferral } from '../support/manual-deferral.js';

function sqliteFixture(dir: string): EventStoreFixture {
  const file = join(dir, 'events.db');
  const opened: EventStore[] = [];
  return {
    isolated: true,
    async open() {
      const store = new SqliteEventStore({ file });
      opened.push(store);
      return store;
    },
    async cleanup() {
      for (const store of opened) await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'event-store-'));

eventStoreContract('embedded SQLite', async () => sqliteFixture(tempDir()), { exactCheckpoints: true });

const esdbUrl = process.env.EVENTSTORE_URL;
if (!esdbUrl) {
  console.warn('EventStore contract: EVENTSTORE_URL is not set, so the EventStoreDB run is SKIPPED.');
}
describe.skipIf(!esdbUrl)('EventStoreDB (EVENTSTORE_URL)', () => {
  eventStoreContract(
    'EventStoreDB',
    async () => {
      const opened: EventStore[] = [];
      return {
        isolated: false,
        async open() {
          const store = new EsdbEventStore(esdbUrl!);
          opened.push(store);
          return store;
        },
        async cleanup() {
          for (const store of opened) await store.close();
        },
      };
    },
    { exactCheckpoints: false },
  );
});

describe('embedded SQLite event store across connections and processes', () => {
  let dir: string;
  let file: string;
  const opened: SqliteEventStore[] = [];
  const open = (): SqliteEventStore => {
    // A long poll interval elsewhere would hide a missing wake-up; 20 ms keeps these tests quick.
    const store = new SqliteEventStore({ file, pollIntervalMs: 20 });
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    dir = tempDir();
    file = join(dir, 'events.db');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a second connection sees appends through its subscription and its consumer group', async () => {
    const writer = open();
    const reader = open(); // shares no in-process wake-up with the writer: only polling finds the appends
    const viaSubscription = deferred<RecordedEvent>();
    const viaGroup = deferred<RecordedEvent>();
    const caughtUp = deferred();
    const sub = reader.subscribeToAll({
      onEvent: (e) => viaSubscription.resolve(e),
      onCaughtUp: () => caughtUp.resolve(),
    });
    await reader.consumerGroup({ group: 'g' }).start(async (e) => {
      viaGroup.resolve(e);
      return 'ack';
    });
    await caughtUp.promise;
    await writer.append('order-1', [ev('OrderPlaced')], { expectedRevision: 'no_stream' });
    expect((await viaSubscription.promise).type).toBe('OrderPlaced');
    expect((await viaGroup.promise).streamId).toBe('order-1');
    await sub.stop();
  });

  it("an append of another connection behind this one's unsynced 'ordered' commit: hidden from its readers until a read-your-writes wait syncs at once", async () => {
    const orderedSyncs = manualDeferral(10);
    const reader = new SqliteEventStore({ file, pollIntervalMs: 20, orderedSyncs: orderedSyncs.deferral });
    opened.push(reader);
    const writer = open();
    await reader.append('idempotency-k', [ev('KeyClaimed')], { expectedRevision: 'no_stream', durability: 'ordered' });
    const placed = await writer.append('order-1', [ev('OrderPlaced')], { expectedRevision: 'no_stream' });
    // Its readers stop before its own commit that no sync covers yet, so before the other's too.
    expect(await reader.headPosition()).toBeLessThan(placed.position);
    expect(await reader.readYourWritesPosition()).toBe(placed.position);
    await eventually(async () => (await reader.headPosition()) >= placed.position);
    expect((await reader.readAll()).map((e) => e.type)).toEqual(['KeyClaimed', 'OrderPlaced']);
    // The wait started the sync, and the deferred one (never run here) was cancelled.
    expect([orderedSyncs.asked, orderedSyncs.waiting]).toEqual([1, 0]);
  });

  it("its own unsynced 'ordered' commit alone held back: a read-your-writes wait is for its readers' head, and spends no sync", async () => {
    const orderedSyncs = manualDeferral(10);
    const store = new SqliteEventStore({ file, pollIntervalMs: 20, orderedSyncs: orderedSyncs.deferral });
    opened.push(store);
    const placed = await store.append('order-1', [ev('OrderPlaced')], { expectedRevision: 'no_stream' });
    const claim = await store.append('idempotency-k', [ev('KeyClaimed')], {
      expectedRevision: 'no_stream',
      durability: 'ordered',
    });
    expect(await store.headPosition()).toBe(placed.position);
    expect(await store.readYourWritesPosition()).toBe(placed.position);
    // Its deferred sync still waits: the read started none.
    expect([orderedSyncs.asked, orderedSyncs.waiting]).toEqual([1, 1]);
    orderedSyncs.due();
    await eventually(async () => (await store.headPosition()) === claim.position);
  });

  it('reads an append another connection made between two of its own, in order', async () => {
    const store = open();
    const other = open();
    await store.append('order-a', [ev('A')], { expectedRevision: 'no_stream' });
    await other.append('order-b', [ev('B')], { expectedRevision: 'no_stream' });
    await store.append('order-c', [ev('C')], { expectedRevision: 'no_stream' });
    expect((await store.readAll()).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    const [a] = await store.readAll({ maxCount: 1 });
    expect((await store.readAll({ after: a!.position })).map((e) => e.type)).toEqual(['B', 'C']);
    const seen: string[] = [];
    const caughtUp = deferred();
    const sub = store.subscribeToAll({ onEvent: (e) => void seen.push(e.type), onCaughtUp: () => caughtUp.resolve() });
    await caughtUp.promise;
    expect(seen).toEqual(['A', 'B', 'C']);
    await sub.stop();
  });

  it('pages of the log leave out what a bounded stream trimmed, also in the append that trims', async () => {
    const store = open();
    const riders = { filter: { streamPrefixes: ['rider-'] } };
    await store.append(
      'rider-1',
      ['P0', 'P1', 'P2', 'P3', 'P4'].map((t) => ev(t)),
      { expectedRevision: 'no_stream' },
    );
    await store.append('order-1', [ev('O0')], { expectedRevision: 'no_stream' });
    await store.setStreamMaxCount('rider-1', 2);
    expect((await store.readAll(riders)).map((e) => e.type)).toEqual(['P3', 'P4']);
    await store.append('rider-1', [ev('P5')], { expectedRevision: 4 });
    expect((await store.readAll(riders)).map((e) => e.type)).toEqual(['P4', 'P5']);
    await store.setStreamMaxCount('rider-2', 1);
    await store.append('rider-2', [ev('Q0'), ev('Q1')], { expectedRevision: 'no_stream' });
    expect((await store.readAll()).map((e) => e.type)).toEqual(['P4', 'O0', 'P5', 'Q1']);
  });

  it('checkpoints the log into the database file on its own thread, and the store connection does not', async () => {
    const store = open();
    for (let i = 0; i < 20; i++)
      await store.append(`order-${i}`, [ev('OrderPlaced', { i })], { expectedRevision: 'no_stream' });
    const result = await store.checkpoint();
    expect(result!.log).toBeGreaterThan(0);
    expect(result!.checkpointed).toBe(result!.log);
    // The database file alone (no -wal beside it) now holds every event.
    const copy = join(dir, 'copy.db');
    writeFileSync(copy, readFileSync(file));
    const db = new Database(copy, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 20 });
    db.close();
    const raw = new Database(file);
    expect(raw.pragma('wal_autocheckpoint', { simple: true })).toBe(1000); // a connection's own setting
    raw.close();
  });

  it('keeps events, revisions and group positions across close and reopen, in WAL mode', async () => {
    const first = open();
    await first.append('order-1', [ev('E0'), ev('E1')], { expectedRevision: 'no_stream' });
    await first.close();
    const raw = new Database(file);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
    const second = open();
    expect((await second.readStream('order-1')).map((e) => e.type)).toEqual(['E0', 'E1']);
    await second.append('order-1', [ev('E2')], { expectedRevision: 1 });
    expect(await second.listStreams({ prefix: 'order-' })).toEqual([{ streamId: 'order-1', lastRevision: 2 }]);
  });

  it('an append from another node process reaches a live subscription here', async () => {
    const store = open();
    const received = deferred<RecordedEvent>();
    const caughtUp = deferred();
    const sub = store.subscribeToAll({ onEvent: (e) => received.resolve(e), onCaughtUp: () => caughtUp.resolve() });
    await caughtUp.promise;
    const lines = await runChild(file, 'order-child', 1);
    const event = await received.promise;
    expect([event.streamId, event.type, String(event.position)]).toEqual(['order-child', 'ChildAppended', lines[0]]);
    await sub.stop();
  });

  it('every append acknowledged before kill -9 is in the file afterwards', async () => {
    const acked = await runChild(file, 'order-crash', 100_000, 50);
    expect(acked.length).toBeGreaterThanOrEqual(50);
    const store = open();
    const stored = new Set((await store.readStream('order-crash')).map((e) => String(e.position)));
    for (const position of acked) expect(stored.has(position)).toBe(true);
  });

  it('two processes appending to one stream with optimistic retries lose nothing', async () => {
    const COUNT = 1000;
    const [a, b] = await Promise.all([
      runChild(file, 'order-contended', COUNT, undefined, 'contend'),
      runChild(file, 'order-contended', COUNT, undefined, 'contend'),
    ]);
    const events = await open().readStream('order-contended');
    expect(events.map((e) => e.revision)).toEqual([...Array(2 * COUNT).keys()]);
    expect(new Set(events.map((e) => String(e.position)))).toEqual(new Set([...a, ...b]));
    const pids = [...new Set(events.map((e) => e.data.pid))];
    expect(pids).toHaveLength(2);
    for (const pid of pids) {
      expect(events.filter((e) => e.data.pid === pid).map((e) => e.data.i)).toEqual([...Array(COUNT).keys()]);
    }
    // The writers really interleaved (otherwise nothing was contended).
    const switches = events.filter((e, i) => i > 0 && e.data.pid !== events[i - 1]!.data.pid).length;
    expect(switches).toBeGreaterThan(1);
  });
});

/**
 * The child's work. `sequence`: append `count` events, each with the exact expected revision.
 * `contend`: the command-handler pattern: read the last revision, append with it, and on a
 * WrongExpectedRevisionError read again and retry. Prints each acknowledged position.
 */
const CHILD_SCRIPT = `import { SqliteEventStore } from './src/adapters/sqlite/event-store.js';
import { WrongExpectedRevisionError } from './src/ports/event-store.js';
const [mode, file, stream, count] = process.argv.slice(2);
const store = new SqliteEventStore({ file });
const event = (i) => ({ type: 'ChildAppended', data: { pid: process.pid, i }, metadata: {} });
for (let i = 0; i < Number(count); i++) {
  for (;;) {
    const last = mode === 'sequence' ? undefined : (await store.readStream(stream, { backwards: true, maxCount: 1 }))[0];
    const expectedRevision = mode === 'sequence' ? (i === 0 ? 'no_stream' : i - 1) : (last ? last.revision : 'no_stream');
    try {
      const r = await store.append(stream, [event(i)], { expectedRevision });
      process.stdout.write(r.position + '\\n'); // synchronous on a pipe: printed means acknowledged
      break;
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError)) throw err;
    }
  }
}
await store.close();
`;

/**
 * Runs the real adapter in a separate node process: its TypeScript sources are transpiled into a
 * temp dir, and a tiny script appends `count` events, printing each acknowledged position.
 * With `killAfter`, the child gets SIGKILL once that many appends were acknowledged.
 */
async function runChild(
  file: string,
  streamId: string,
  count: number,
  killAfter?: number,
  mode: 'sequence' | 'contend' = 'sequence',
): Promise<string[]> {
  const args = [childScript(), mode, file, streamId, String(count)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (killAfter !== undefined && out.split('\n').length - 1 >= killAfter) child.kill('SIGKILL');
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  if (killAfter === undefined && code !== 0) throw new Error(`child failed (${code}): ${err}`);
  return out.split('\n').slice(0, -1); // the last piece is empty or a line cut by the kill
}

let childDir: string | undefined;
afterAll(() => {
  if (childDir) rmSync(childDir, { recursive: true, force: true });
});

/** The transpiled adapter plus CHILD_SCRIPT in a temp dir, built once per run. */
function childScript(): string {
  if (!childDir) {
    childDir = mkdtempSync(join(tmpdir(), 'event-store-child-'));
    transpileTree('src/adapters/sqlite/event-store.ts', childDir);
    transpileTree('src/ports/event-store.ts', childDir);
    writeFileSync(join(childDir, 'child.mjs'), CHILD_SCRIPT);
    // The WAL checkpointer's worker resolves the driver by name, from the module's own location.
    symlinkSync(join(ROOT, 'node_modules'), join(childDir, 'node_modules'), 'dir');
  }
  return join(childDir, 'child.mjs');
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Transpiles `entry` and every relative module it imports into `outDir`, keeping paths. */
function transpileTree(entry: string, outDir: string): void {
  const betterSqlite = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
  const queue = [entry];
  const done = new Set<string>();
  while (queue.length > 0) {
    const rel = queue.pop()!;
    if (done.has(rel)) continue;
    done.add(rel);
    const source = readFileSync(join(ROOT, rel), 'utf8');
    const js = ts
      .transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      })
      .outputText.replace(/from ['"]better-sqlite3['"]/, `from '${betterSqlite}'`);
    const target = join(outDir, rel.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
    for (const m of source.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) queue.push(join(dirname(rel), `${m[1]}.ts`));
  }
}

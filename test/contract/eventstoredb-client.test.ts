/**
 * How the EventStoreDB adapter drives the real client (@eventstore/db-client), against a gRPC
 * stand-in (test/support/esdb-stand-in.ts): reads left early, serialisation, consumer-group
 * settings and lifecycle, positions, foreign events, refused reads, reconnection. The stand-in
 * answers with simple in-memory semantics, so these tests say what the adapter asks of the server
 * and how it takes the answers, never that EventStoreDB behaves this way; the EventStore contract
 * suite run against a real server (EVENTSTORE_URL) covers that.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AccessDeniedError,
  excludeSystemEvents,
  persistentSubscriptionToAllSettingsFromDefaults,
} from '@eventstore/db-client';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { EsdbEventStore } from '../../src/adapters/eventstoredb/event-store.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import {
  LogPositionError,
  StorageUnavailableError,
  StreamAccessDeniedError,
  type ConsumerOutcome,
  type NewEvent,
  type RecordedEvent,
} from '../../src/ports/event-store.js';
import { EsdbStandIn } from '../support/esdb-stand-in.js';
import { ev, eventually } from './event-store.contract.js';
import { deferred } from '../support/deferred.js';

/** Rejects when `promise` has not settled within `ms`: a defect here hangs instead of failing. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lets `n` turns of the event loop pass (the client cancels calls from a setImmediate). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

const types = (events: RecordedEvent[]): string[] => events.map((e) => e.type);
const asJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
const ack = async (): Promise<ConsumerOutcome> => 'ack';

describe('EventStoreDB adapter: client behaviour over a gRPC stand-in (not EventStoreDB)', () => {
  let standIn: EsdbStandIn | undefined;
  let stores: EsdbEventStore[];
  let logger: Record<'warn' | 'error' | 'info', Mock<(...args: unknown[]) => void>>;
  let ns: string;
  const s = (name: string): string => `${name}-${ns}`;

  async function setUp(
    options: { maxConcurrentStreams?: number } = {},
  ): Promise<{ server: EsdbStandIn; store: EsdbEventStore }> {
    const server = await EsdbStandIn.start(options);
    standIn = server;
    return { server, store: open(server) };
  }

  function open(server: EsdbStandIn): EsdbEventStore {
    const store = new EsdbEventStore(server.url, { logger });
    stores.push(store);
    return store;
  }

  beforeEach(() => {
    stores = [];
    logger = { warn: vi.fn(), error: vi.fn(), info: vi.fn() }; // pino-style: (fields, message)
    ns = randomUUID().slice(0, 8);
  });

  afterEach(async () => {
    const closing = Promise.all(stores.map((store) => store.close()));
    const closed = await within(closing, 5000, 'store.close()').then(
      () => true,
      () => false,
    );
    await standIn?.stop(); // ends whatever the stores left open, so a hung close() finishes too
    standIn = undefined;
    await within(closing, 5000, 'store.close() after the stand-in stopped').catch(() => undefined);
    // The client's dispose() waits for every call it still counts as open: a read left early
    // (finished by the server, its messages never read) keeps close() waiting forever.
    expect(closed, 'store.close() finished while the server was up').toBe(true);
  });

  it('leaves no read open when it stops early, so later calls still get a stream', async () => {
    const { server, store } = await setUp({ maxConcurrentStreams: 100 });
    // Enough events that what an early-left read does not take exceeds what the client buffers
    // (16 messages and the HTTP/2 flow-control window), as on any log of some size: otherwise
    // the server finishes the call whatever the client does.
    for (let batch = 0; batch < 24; batch++) {
      const events = Array.from({ length: 10 }, (_, i) => ev('Padded', { i, pad: 'x'.repeat(400) }));
      await store.append(s(`order-${batch % 4}`), events, { expectedRevision: 'any' });
    }
    for (let i = 0; i < 3; i++) {
      server.appendForeign('$stats-127.0.0.1:2113', {
        type: '$statsCollected',
        contentType: 'application/json',
        data: Buffer.from('{}'),
      });
    }
    const head = server
      .events()
      .filter((e) => !e.streamId.startsWith('$') && !e.type.startsWith('$'))
      .at(-1)!.position;

    const heads = Array.from({ length: 150 }, () => store.headPosition());
    const pages = Array.from({ length: 150 }, () => store.readAll({ maxCount: 1 }));
    const [headResults, pageResults] = await within(
      Promise.all([Promise.all(heads), Promise.all(pages)]),
      15_000,
      '300 reads on a 100-stream connection',
    );
    expect(new Set(headResults)).toEqual(new Set([head]));
    expect(new Set(pageResults.map((page) => page.length))).toEqual(new Set([1]));

    await eventually(() => server.openCalls('Read').length === 0, 5000);
    expect(
      server.calls.filter((c) => c.method === 'Read').every((c) => c.state === 'ended' || c.state === 'cancelled'),
    ).toBe(true);
    await within(
      store.append(s('order-0'), [ev('After')], { expectedRevision: 'any' }),
      5000,
      'an append after the reads',
    );
  }, 30_000);

  it('refuses data or metadata it cannot serialise, naming stream and type, with nothing sent and no unhandled rejection', async () => {
    const { server, store } = await setUp();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const stream = s('order');
      const circular: Record<string, unknown> = { actor: 'partner' };
      circular.self = circular;
      const cases: NewEvent[] = [
        { type: 'BigIntInData', data: { amount: 10n }, metadata: {} },
        { type: 'CircularMetadata', data: {}, metadata: circular },
      ];
      for (const bad of cases) {
        const sent = server.appendRequests.length;
        const err = await within(
          store.append(stream, [bad], { expectedRevision: 'any' }),
          5000,
          `append of ${bad.type}`,
        ).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(TypeError);
        expect((err as Error).message).toContain(stream);
        expect((err as Error).message).toContain(bad.type);
        expect(server.appendRequests.slice(sent)).toEqual([]);
      }
      await new Promise((resolve) => setImmediate(resolve)); // unhandled rejections are reported by now
      expect(unhandled).toEqual([]);
      await within(store.append(stream, [ev('Fine')], { expectedRevision: 'any' }), 5000, 'a normal append');
      expect(types(await store.readStream(stream))).toEqual(['Fine']);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('creates a group whose messageTimeout leaves the handler its maxHandlerMs and 10 s more', async () => {
    const { server, store } = await setUp();
    await store.consumerGroup({ group: s('slow'), maxHandlerMs: 45_000 }).start(ack);
    expect(server.group(s('slow'))!.settings.messageTimeoutMs).toBeGreaterThanOrEqual(55_000);
    await store.consumerGroup({ group: s('default') }).start(ack); // default maxHandlerMs: 30 s
    expect(server.group(s('default'))!.settings.messageTimeoutMs).toBeGreaterThanOrEqual(40_000);
  });

  it('refuses to read the log after a position that is not in it (LogPositionError)', async () => {
    const { store } = await setUp();
    await store.append(s('order'), [ev('E0'), ev('E1')], { expectedRevision: 'no_stream' });
    const [first] = await store.readStream(s('order'));
    const between = await store.readAll({ after: first!.position + 1n }).catch((e: unknown) => e);
    expect(between).toMatchObject({ name: 'LogPositionError' });
    expect(between).toBeInstanceOf(LogPositionError);

    const head = await store.headPosition();
    const past = await store.readAll({ after: head + 1_000_000n }).catch((e: unknown) => e);
    expect(past).toMatchObject({ name: 'LogPositionError' });
    expect(past).toBeInstanceOf(LogPositionError);
    expect((past as Error).message).toContain(String(head));
  });

  it("skips another tool's non-JSON events everywhere, acks them in groups and logs them", async () => {
    const { server, store } = await setUp();
    const stream = s('order');
    await store.append(stream, [ev('Before')], { expectedRevision: 'no_stream' });
    const foreign = [
      server.appendForeign(stream, {
        type: 'LegacyBlob',
        contentType: 'application/octet-stream',
        data: Buffer.from([0xde, 0xad, 0xbe, 0xef]),
      }),
      server.appendForeign(s('legacy'), {
        type: 'LegacyBlob',
        contentType: 'application/octet-stream',
        data: Buffer.from([1, 2, 3]),
      }),
    ];
    await store.append(stream, [ev('After')], { expectedRevision: 'any' });

    expect(types(await store.readAll())).toEqual(['Before', 'After']);

    const seen: string[] = [];
    const caughtUp = deferred();
    const onError = vi.fn();
    const sub = store.subscribeToAll({
      onEvent: (e) => void seen.push(e.type),
      onCaughtUp: () => caughtUp.resolve(),
      onError,
    });
    await within(caughtUp.promise, 5000, 'catching up');
    server.appendForeign(stream, {
      type: 'LegacyBlob',
      contentType: 'application/octet-stream',
      data: Buffer.from([7]),
    });
    await store.append(stream, [ev('Live')], { expectedRevision: 'any' });
    await eventually(() => seen.includes('Live'));
    expect(seen).toEqual(['Before', 'After', 'Live']);
    expect(onError).not.toHaveBeenCalled();
    await sub.stop();

    const handled: string[] = [];
    await store.consumerGroup({ group: s('group') }).start(async (e) => {
      handled.push(e.type);
      return 'ack';
    });
    await eventually(() => handled.includes('Live'));
    expect(handled).toEqual(['Before', 'After', 'Live']);
    const acked = (id: string): boolean => server.settlements.some((x) => x.action === 'ack' && x.ids.includes(id));
    await eventually(() => foreign.every((e) => acked(e.id)));
    for (const e of foreign) expect(asJson(logger.warn.mock.calls)).toContain(e.id);
  });

  it('calls onError when the server ends a live subscription without an error', async () => {
    const { server, store } = await setUp();
    await store.append(s('order'), [ev('E0')], { expectedRevision: 'no_stream' });
    const caughtUp = deferred();
    const failed = deferred<unknown>();
    store.subscribeToAll({
      onEvent: () => undefined,
      onCaughtUp: () => caughtUp.resolve(),
      onError: (err) => failed.resolve(err),
    });
    await within(caughtUp.promise, 5000, 'catching up');
    await eventually(() => server.openCalls('Read').some((c) => c.read?.kind === 'subscription'));
    expect(server.endSubscriptions()).toBe(1);
    expect(await within(failed.promise, 5000, 'onError')).toBeInstanceOf(Error);
  });

  it('stop() waits for the in-flight handler, sends its ack before leaving, and hands out nothing more', async () => {
    const { server, store } = await setUp();
    await store.append(s('order'), [ev('First'), ev('Second')], { expectedRevision: 'no_stream' });
    const [first, second] = await store.readStream(s('order'));
    const entered = deferred();
    const outcome = deferred<ConsumerOutcome>();
    const handled: string[] = [];
    const group = store.consumerGroup({ group: s('group') });
    await group.start(async (e) => {
      handled.push(e.type);
      if (e.type !== 'First') return 'ack';
      entered.resolve();
      return outcome.promise;
    });
    await within(entered.promise, 5000, 'the first delivery');
    const stopping = group.stop();
    await turns(3); // stop() goes as far as it can without the handler (an early unsubscribe cancels here)
    outcome.resolve('ack');
    await within(stopping, 5000, 'stop()');

    // What the client wrote reaches the server a little later: wait for the call to end, then
    // look at what arrived on it before it ended.
    const call = server.calls.find((c) => c.method === 'ReadPersistent' && c.persistent?.group === s('group'))!;
    await eventually(() => call.endedSeq !== undefined);
    const sentAck = server.settlements.find((x) => x.action === 'ack' && x.ids.includes(first!.id));
    expect(sentAck, 'the ack of the in-flight event reached the server').toBeDefined();
    expect(sentAck!.callId).toBe(call.id);
    expect(sentAck!.seq).toBeLessThan(call.endedSeq!);
    // The ack freed the consumer's one slot, so the server sent the next event before the call
    // ended; stopping, the adapter must not hand it to the handler.
    expect(server.deliveries.some((d) => d.callId === call.id && d.eventId === second!.id)).toBe(true);
    expect(handled).toEqual(['First']);
  });

  it('recreates a group an operator deleted while it runs, and delivery goes on', async () => {
    const { server, store } = await setUp();
    const handled: string[] = [];
    const onError = vi.fn();
    await store.consumerGroup({ group: s('group'), onError }).start(async (e) => {
      handled.push(e.type);
      return 'ack';
    });
    await store.append(s('order'), [ev('Before')], { expectedRevision: 'no_stream' });
    await eventually(() => handled.includes('Before'));
    server.deleteGroup(s('group'));
    await eventually(() => server.group(s('group')) !== undefined, 10_000);
    await store.append(s('order'), [ev('After')], { expectedRevision: 'any' });
    await eventually(() => handled.includes('After'), 10_000);
    expect(server.groupRequests.filter((r) => r.group === s('group') && r.op === 'create')).toHaveLength(2);
  });

  it('updates a group that exists with other settings to its own at start', async () => {
    const { server, store } = await setUp();
    const group = s('group');
    await store.client.createPersistentSubscriptionToAll(
      group,
      persistentSubscriptionToAllSettingsFromDefaults({ maxRetryCount: 3 }),
      {
        filter: excludeSystemEvents(),
      },
    );
    await store.consumerGroup({ group }).start(ack);
    const updates = server.groupRequests.filter((r) => r.group === group && r.op === 'update');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.settings).toMatchObject({ maxRetryCount: 10, consumerStrategy: 'DispatchToSingle' });
    expect(updates[0]!.settings!.messageTimeoutMs).toBeGreaterThanOrEqual(40_000);
    expect(server.group(group)!.settings.maxRetryCount).toBe(10);
  });

  it('does not update a group that already has its settings (an update disconnects the other replicas)', async () => {
    const { server, store } = await setUp();
    const group = s('group');
    const first = store.consumerGroup({ group });
    await first.start(ack);
    await first.stop();
    await open(server).consumerGroup({ group }).start(ack); // another replica starting the same group
    expect(server.groupRequests.filter((r) => r.group === group && r.op === 'update')).toEqual([]);
  });

  it("writes correlation and causation ids as EventStoreDB's own metadata keys and reads back only the service's", async () => {
    const { server, store } = await setUp();
    const metadata = { correlation_id: 'c1', causation_id: 'e0', actor: 'partner' };
    await store.append(s('order'), [{ type: 'OrderPlaced', data: { n: 1 }, metadata }], {
      expectedRevision: 'no_stream',
    });
    const sent = server.appendRequests.flatMap((m) => m.events).find((e) => e.type === 'OrderPlaced');
    expect(JSON.parse(sent!.metadata.toString('utf8'))).toEqual({
      ...metadata,
      $correlationId: 'c1',
      $causationId: 'e0',
    });
    const [read] = await store.readStream(s('order'));
    expect(read!.metadata).toEqual(metadata);
    const [fromAll] = await store.readAll();
    expect(fromAll!.metadata).toEqual(metadata);
  });

  it('refuses an event id that is not a UUID, or an empty type, like the embedded store and before sending', async () => {
    const { server, store } = await setUp();
    const dir = mkdtempSync(join(tmpdir(), 'esdb-client-'));
    const embedded = new SqliteEventStore({ file: join(dir, 'events.db') });
    try {
      for (const bad of [{ ...ev('Fine'), id: 'not-a-uuid' }, ev('')]) {
        const expected = await embedded
          .append('order-embedded', [bad], { expectedRevision: 'any' })
          .catch((e: unknown) => e);
        expect(expected).toBeInstanceOf(TypeError);
        const sent = server.appendRequests.length;
        const err = await within(
          store.append(s('order'), [bad], { expectedRevision: 'any' }),
          5000,
          'the append',
        ).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(TypeError);
        expect((err as Error).message).toBe((expected as Error).message);
        expect(server.appendRequests.length).toBe(sent);
      }
    } finally {
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists streams reading $streams in bounded pages and only the listed streams’ last revisions, page after page', async () => {
    const { server, store } = await setUp();
    const names = Array.from({ length: 10 }, (_, i) => s(`stream-${String(i).padStart(2, '0')}`));
    for (const [i, name] of [...names].reverse().entries()) {
      await store.append(
        name,
        Array.from({ length: 1 + (i % 3) }, () => ev('E')),
        { expectedRevision: 'no_stream' },
      );
    }
    const mark = server.calls.length;
    const listed = await store.listStreams({ limit: 2 });
    const reads = server.calls.slice(mark).filter((c) => c.method === 'Read' && c.read?.kind === 'stream');
    const expected = await Promise.all(
      names
        .slice(0, 2)
        .map(async (streamId) => ({ streamId, lastRevision: (await store.readStream(streamId)).length - 1 })),
    );
    expect(listed).toEqual(expected);
    const pages = reads.filter((c) => c.read!.streamId === '$streams');
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) expect(page.read!.count).toBeLessThanOrEqual(500n);
    expect(reads.filter((c) => c.read!.streamId !== '$streams').length).toBeLessThanOrEqual(2);

    // The next pages start after the last name of the one before; each reads only its own streams' revisions.
    const seen = listed.map((x) => x.streamId);
    let after = seen.at(-1)!;
    for (;;) {
      const from = server.calls.length;
      const page = await store.listStreams({ prefix: 'stream-', limit: 3, after });
      const revisionReads = server.calls
        .slice(from)
        .filter((c) => c.method === 'Read' && c.read?.kind === 'stream' && c.read.streamId !== '$streams');
      expect(revisionReads.map((c) => c.read!.streamId).sort()).toEqual(page.map((x) => x.streamId));
      seen.push(...page.map((x) => x.streamId));
      if (page.length < 3) break;
      after = page.at(-1)!.streamId;
    }
    expect(seen).toEqual(names);
    expect(await store.listStreams({ prefix: 'stream-', after: names.at(-1)! })).toEqual([]);
  });

  it('lists full pages when listed names have no event left (deleted streams), short only at the end', async () => {
    const { server, store } = await setUp();
    const live = ['ghosts-a', 'ghosts-c', 'ghosts-e', 'ghosts-f', 'ghosts-h'].map(s);
    for (const name of live) await store.append(name, [ev('E')], { expectedRevision: 'no_stream' });
    // $streams links to streams an operator deleted since: nothing to read behind them.
    for (const gone of ['ghosts-b', 'ghosts-d', 'ghosts-g'].map(s))
      server.appendForeign('$streams', {
        type: '$>',
        contentType: 'application/octet-stream',
        data: Buffer.from(`0@${gone}`),
      });
    const pages: string[][] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.listStreams({ prefix: 'ghosts-', limit: 2, ...(after ? { after } : {}) });
      pages.push(page.map((x) => x.streamId));
      if (page.length < 2) break;
      after = page.at(-1)!.streamId;
    }
    expect(pages).toEqual([[live[0], live[1]], [live[2], live[3]], [live[4]]]);
  });

  it('a read the server refuses (access denied) rejects with StreamAccessDeniedError naming the stream', async () => {
    const { server, store } = await setUp();
    await store.append(s('order'), [ev('Placed')], { expectedRevision: 'no_stream' });
    server.denyReads((streamId) => streamId.startsWith('$'));
    for (const [streamId, options] of [
      ['$denied-stream', {}],
      ['$denied-stream', { backwards: true, maxCount: 1 }],
      ['$streams', { fromRevision: 0 }],
    ] as const) {
      const err = await within(store.readStream(streamId, options), 5000, 'readStream').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StreamAccessDeniedError);
      expect(err).toMatchObject({ streamId, name: 'StreamAccessDeniedError' });
      expect((err as Error).cause).toBeInstanceOf(AccessDeniedError);
    }
    // Other streams read as before, and every refused call was ended by the server, none left open.
    expect(types(await store.readStream(s('order')))).toEqual(['Placed']);
    expect(server.calls.filter((c) => c.error === 'Access Denied').map((c) => c.state)).toEqual([
      'errored',
      'errored',
      'errored',
    ]);
    expect(server.openCalls('Read')).toEqual([]);

    // Listing reads $streams, then each listed stream: a refusal of either names that stream.
    await expect(within(store.listStreams(), 5000, 'listStreams')).rejects.toMatchObject({
      name: 'StreamAccessDeniedError',
      streamId: '$streams',
    });
    server.denyReads((streamId) => streamId === s('order'));
    await expect(within(store.listStreams(), 5000, 'listStreams')).rejects.toMatchObject({
      name: 'StreamAccessDeniedError',
      streamId: s('order'),
    });
    server.denyReads(() => false);
    expect(await store.listStreams()).toEqual([{ streamId: s('order'), lastRevision: 0 }]);
  });

  it('reads and writes reject with StorageUnavailableError while the server is down', async () => {
    const { server, store } = await setUp();
    await store.append(s('order'), [ev('Before')], { expectedRevision: 'no_stream' });
    await server.stop();
    standIn = undefined;
    const unreachable = { name: 'StorageUnavailableError', reason: 'unreachable' };
    await expect(within(store.readStream(s('order')), 10_000, 'readStream')).rejects.toMatchObject(unreachable);
    await expect(within(store.readAll({ maxCount: 10 }), 10_000, 'readAll')).rejects.toBeInstanceOf(
      StorageUnavailableError,
    );
    await expect(within(store.headPosition(), 10_000, 'headPosition')).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(
      within(store.append(s('order'), [ev('After')], { expectedRevision: 'any' }), 10_000, 'append'),
    ).rejects.toMatchObject(unreachable);
  });

  it('a consumer group reconnects after the server restarts and handles what is appended after', async () => {
    const { server, store } = await setUp();
    const handled: string[] = [];
    await store.consumerGroup({ group: s('group'), onError: vi.fn() }).start(async (e) => {
      handled.push(e.type);
      return 'ack';
    });
    await store.append(s('order'), [ev('Before')], { expectedRevision: 'no_stream' });
    await eventually(() => handled.includes('Before'));
    await server.restart();
    await eventually(async () => {
      try {
        await store.append(s('order'), [ev('After')], { expectedRevision: 'any' });
        return true;
      } catch {
        return false;
      }
    }, 10_000);
    await eventually(() => handled.includes('After'), 10_000);
  });
});

import {
  BACKWARDS,
  CancelledError,
  DeadlineExceededError,
  END,
  EventStoreDBClient,
  FORWARDS,
  NotLeaderError,
  START,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type EventData,
  type ReadPosition,
} from '@eventstore/db-client';
import {
  LogPositionError,
  type AppendOptions,
  type AppendResult,
  type ConsumerGroup,
  type ConsumerGroupOptions,
  type EventStore,
  type ListStreamsOptions,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamInfo,
  type SubscribeToAllOptions,
  type Subscription,
} from '../../ports/event-store.js';
import type { Logger } from '../../shared/logger.js';
import { assertStreamId, prepareEvent } from '../event-store-checks.js';
import { EsdbConsumerGroup } from './event-store-consumer-group.js';
import { listStreamsFromSystemProjection } from './event-store-streams.js';
import {
  fromPosition,
  isServiceEvent,
  mapAppendError,
  mapReadError,
  mapUnreachable,
  matchesFilter,
  serverFilter,
  toEsdbExpected,
  toEsdbMetadata,
  toRecordedEvent,
  type ForeignEventHandler,
} from './event-store-mapping.js';
import { consume } from './reads.js';

const READ_BATCH = 500;
const DEFAULT_READ_ALL_COUNT = 1000;
/** Backwards page when looking for the newest event: the server writes its own stats events too. */
const HEAD_BATCH = 100;

export interface EsdbEventStoreOptions {
  /** Where skipped foreign events are reported (warn); console when absent. */
  logger?: Pick<Logger, 'warn' | 'error'>;
}

/** The EventStore port on EventStoreDB / KurrentDB (gRPC client v6): a thin mapping. */
export class EsdbEventStore implements EventStore {
  readonly client: EventStoreDBClient;
  private readonly closers = new Set<() => Promise<void>>();
  private readonly onForeign: ForeignEventHandler;
  private closed = false;

  /** `connection`: an esdb:// connection string, or a client the caller owns. */
  constructor(connection: string | EventStoreDBClient, options: EsdbEventStoreOptions = {}) {
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
    const logger = options.logger;
    this.onForeign = (event, reason) => {
      const fields = { event_id: event.id, stream: event.streamId, type: event.type, reason };
      const message = 'skipped an event the service cannot read (another tool wrote it)';
      if (logger) logger.warn(fields, message);
      else console.warn(message, fields);
    };
  }

  async append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    assertStreamId(streamId);
    if (events.length === 0) throw new TypeError('append needs at least one event');
    const data = events.map((e) => toEventData(streamId, e));
    try {
      const result = await this.client.appendToStream(streamId, data, {
        expectedRevision: toEsdbExpected(options.expectedRevision),
      });
      const nextExpectedRevision = Number(result.nextExpectedRevision);
      return {
        nextExpectedRevision,
        position: await this.lastPosition(streamId, nextExpectedRevision, events.length, result.position?.commit),
      };
    } catch (err) {
      throw mapAppendError(err, streamId, options.expectedRevision);
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    const start = options.backwards ? END : START;
    try {
      const read = this.client.readStream(streamId, {
        direction: options.backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision === undefined ? start : BigInt(options.fromRevision),
        ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
      });
      for await (const resolved of consume(read)) {
        const event = toRecordedEvent(resolved, this.onForeign);
        if (event) out.push(event);
      }
    } catch (err) {
      // Thrown while iterating, not by readStream() itself.
      if (err instanceof StreamNotFoundError) return [];
      throw mapReadError(err, streamId);
    }
    return out;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? DEFAULT_READ_ALL_COUNT;
    const out: RecordedEvent[] = [];
    let seen = options.after ?? -1n;
    // readAll has no server-side filter in client v6: read batches and filter here.
    while (out.length < maxCount) {
      let count = 0;
      const from = seen;
      try {
        for await (const resolved of consume(
          this.client.readAll({ fromPosition: fromPosition(from), maxCount: READ_BATCH }),
        )) {
          count++;
          const position = positionOf(resolved);
          if (position === undefined || position <= seen) continue; // reads from a position are inclusive
          seen = position;
          const event = toRecordedEvent(resolved, this.onForeign);
          if (event && matchesFilter(event, options.filter)) out.push(event);
          if (out.length >= maxCount) break;
        }
      } catch (err) {
        throw mapUnreachable(await this.positionError(err, from));
      }
      // A read from an event's position returns at least that event: nothing at all means the
      // position is past the end of the log (the server answers such a read with no error).
      if (count === 0 && from > 0n) {
        const head = await this.headPosition();
        if (from > head) throw new LogPositionError(from, head);
      }
      if (count < READ_BATCH) break;
    }
    return out;
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    let stopped = false;
    let live: AllStreamSubscription | undefined;
    const run = async (): Promise<void> => {
      await Promise.resolve();
      let after = options.after;
      // Catch up with plain reads, so onCaughtUp means "every event that existed was delivered".
      for (;;) {
        const page = await this.readAll({ after, maxCount: READ_BATCH, filter: options.filter });
        for (const event of page) {
          if (stopped) return;
          await options.onEvent(event);
          after = event.position;
        }
        if (page.length < READ_BATCH) break;
      }
      if (stopped) return;
      options.onCaughtUp?.();
      live = this.client.subscribeToAll({ fromPosition: fromPosition(after), filter: serverFilter(options.filter) });
      for await (const resolved of live) {
        if (stopped) return;
        const event = toRecordedEvent(resolved, this.onForeign);
        if (!event || (after !== undefined && event.position <= after) || !matchesFilter(event, options.filter))
          continue;
        await options.onEvent(event);
        after = event.position;
      }
      // A live subscription has no end: the server or the connection dropped it without saying why.
      if (!stopped) throw new Error('the live subscription to $all ended without an error');
    };
    const done = run().catch((err: unknown) => {
      if (stopped) return;
      stopped = true;
      if (options.onError) options.onError(err);
      else console.error('event store subscription stopped:', err);
    });
    const stop = async (): Promise<void> => {
      stopped = true;
      this.closers.delete(stop);
      if (live) {
        await live.unsubscribe();
        live.destroy();
      }
      await done;
    };
    this.closers.add(stop);
    return { stop };
  }

  /**
   * Nothing to wait for: the leader (the client's default node) shows an event to reads only once a
   * majority has written it, and nodes write to disk before acknowledging, unless run with `MemDb`
   * or `UnsafeDisableFlushToDisk` (docs/event-store.md, the adapter's table).
   */
  async whenDurable(): Promise<void> {}

  /** Reads show every acknowledged event at once (whenDurable): the head is the position. */
  readYourWritesPosition(): Promise<bigint> {
    return this.headPosition();
  }

  async headPosition(): Promise<bigint> {
    try {
      return await this.readHeadPosition();
    } catch (err) {
      throw mapUnreachable(err);
    }
  }

  private async readHeadPosition(): Promise<bigint> {
    let from: ReadPosition = END;
    let before: bigint | undefined;
    for (;;) {
      let count = 0;
      for await (const resolved of consume(
        this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: HEAD_BATCH }),
      )) {
        count++;
        const position = positionOf(resolved);
        if (position === undefined || (before !== undefined && position >= before)) continue;
        // Another tool's events are not the service's head: read models never pass them.
        if (isServiceEvent(resolved)) return position;
        before = position;
      }
      if (count < HEAD_BATCH || before === undefined) return 0n;
      from = { commit: before, prepare: before };
    }
  }

  async setStreamMaxCount(streamId: string, maxCount: number): Promise<void> {
    try {
      const current = await this.client.getStreamMetadata(streamId);
      await this.client.setStreamMetadata(streamId, { ...current.metadata, maxCount });
    } catch (err) {
      throw mapUnreachable(err);
    }
  }

  async listStreams(options: ListStreamsOptions = {}): Promise<StreamInfo[]> {
    return listStreamsFromSystemProjection(this.client, options);
  }

  consumerGroup(options: ConsumerGroupOptions): ConsumerGroup {
    const group = new EsdbConsumerGroup(this.client, options, this.onForeign);
    this.closers.add(() => group.stop());
    return group;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.closers].map((stop) => stop()));
    await this.client.dispose();
  }

  /**
   * A read of $all from a position fails on the server when the position is not an event's (a
   * checkpoint from another database, or past the head of a wiped one). When the server answers a
   * read from the end, the position was the cause: say so, once, instead of failing at every retry.
   */
  private async positionError(err: unknown, after: bigint): Promise<unknown> {
    const unreachable = [UnavailableError, DeadlineExceededError, CancelledError, TimeoutError, NotLeaderError];
    if (after <= 0n || unreachable.some((kind) => err instanceof kind)) return err;
    const head = await this.headPosition().catch(() => undefined);
    return head === undefined ? err : new LogPositionError(after, head);
  }

  /**
   * The append response carries the write's commit position; for several events that may name
   * the first one, so read the last appended revision back to get its own position.
   */
  private async lastPosition(streamId: string, revision: number, count: number, reported?: bigint): Promise<bigint> {
    if (count === 1 && reported !== undefined) return reported;
    const [last] = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    return last && last.position >= 0n ? last.position : (reported ?? -1n);
  }
}

function positionOf(resolved: AllStreamResolvedEvent): bigint | undefined {
  return resolved.event?.position.commit ?? resolved.commitPosition;
}

/**
 * Checked and serialised here, before the client: the client serialises inside a promise executor
 * on its batch-append path, where a failure leaves the append pending forever and escapes as an
 * unhandled rejection (which ends a Node process).
 */
function toEventData(streamId: string, e: NewEvent): EventData {
  const { id, type, data, metadata } = prepareEvent(e);
  const esdbMetadata = toEsdbMetadata(metadata);
  for (const [part, value] of [
    ['data', data],
    ['metadata', esdbMetadata],
  ] as const) {
    try {
      JSON.stringify(value);
    } catch (err) {
      throw new TypeError(
        `Event ${type} for stream ${streamId}: its ${part} cannot be serialised as JSON (${(err as Error).message})`,
      );
    }
  }
  return jsonEvent({ id, type, data, metadata: esdbMetadata });
}

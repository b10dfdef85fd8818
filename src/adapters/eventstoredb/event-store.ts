import { randomUUID } from 'node:crypto';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  StreamNotFoundError,
  jsonEvent,
  type AllStreamSubscription,
} from '@eventstore/db-client';
import type {
  AppendOptions,
  AppendResult,
  ConsumerGroup,
  ConsumerGroupOptions,
  EventStore,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamInfo,
  SubscribeToAllOptions,
  Subscription,
} from '../../ports/event-store.js';
import { EsdbConsumerGroup } from './event-store-consumer-group.js';
import { listStreamsFromSystemProjection } from './event-store-streams.js';
import {
  fromPosition,
  mapAppendError,
  matchesFilter,
  serverFilter,
  toEsdbExpected,
  toRecordedEvent,
} from './event-store-mapping.js';

const READ_BATCH = 500;
const DEFAULT_READ_ALL_COUNT = 1000;

/** The EventStore port on EventStoreDB / KurrentDB (gRPC client v6): a thin mapping. */
export class EsdbEventStore implements EventStore {
  readonly client: EventStoreDBClient;
  private readonly closers = new Set<() => Promise<void>>();
  private closed = false;

  /** `connection`: an esdb:// connection string, or a client the caller owns. */
  constructor(connection: string | EventStoreDBClient) {
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
  }

  async append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (streamId === '' || streamId.startsWith('$')) {
      throw new TypeError(`Invalid stream id "${streamId}": non-empty, not starting with "$"`);
    }
    if (events.length === 0) throw new TypeError('append needs at least one event');
    const data = events.map((e) =>
      jsonEvent({ id: e.id ?? randomUUID(), type: e.type, data: e.data, metadata: e.metadata }),
    );
    try {
      const result = await this.client.appendToStream(streamId, data, {
        expectedRevision: toEsdbExpected(options.expectedRevision),
      });
      const nextExpectedRevision = Number(result.nextExpectedRevision);
      return { nextExpectedRevision, position: await this.lastPosition(streamId, nextExpectedRevision, events.length, result.position?.commit) };
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
      for await (const resolved of read) {
        const event = toRecordedEvent(resolved);
        if (event) out.push(event);
      }
    } catch (err) {
      // Thrown while iterating, not by readStream() itself.
      if (err instanceof StreamNotFoundError) return [];
      throw err;
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
      for await (const resolved of this.client.readAll({ fromPosition: fromPosition(seen), maxCount: READ_BATCH })) {
        count++;
        const position = resolved.event?.position.commit ?? resolved.commitPosition;
        if (position === undefined || position <= seen) continue; // reads from a position are inclusive
        seen = position;
        const event = toRecordedEvent(resolved);
        if (event && matchesFilter(event, options.filter)) out.push(event);
        if (out.length >= maxCount) break;
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
        const event = toRecordedEvent(resolved);
        if (!event || (after !== undefined && event.position <= after) || !matchesFilter(event, options.filter)) continue;
        await options.onEvent(event);
        after = event.position;
      }
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

  async headPosition(): Promise<bigint> {
    for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: END })) {
      const event = toRecordedEvent(resolved);
      if (event) return event.position; // breaking out cancels the read
    }
    return 0n;
  }

  async setStreamMaxCount(streamId: string, maxCount: number): Promise<void> {
    const current = await this.client.getStreamMetadata(streamId);
    await this.client.setStreamMetadata(streamId, { ...current.metadata, maxCount });
  }

  async listStreams(options: { prefix?: string; limit?: number } = {}): Promise<StreamInfo[]> {
    return listStreamsFromSystemProjection(this.client, options);
  }

  consumerGroup(options: ConsumerGroupOptions): ConsumerGroup {
    const group = new EsdbConsumerGroup(this.client, options);
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
   * The append response carries the write's commit position; for several events that may name
   * the first one, so read the last appended revision back to get its own position.
   */
  private async lastPosition(streamId: string, revision: number, count: number, reported?: bigint): Promise<bigint> {
    if (count === 1 && reported !== undefined) return reported;
    const [last] = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    return last && last.position >= 0n ? last.position : (reported ?? -1n);
  }
}

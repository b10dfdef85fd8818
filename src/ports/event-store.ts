import { Refusal } from '../shared/refusal.js';
import type { Environment } from '../domain/environment.js';
import type { EventFilter } from './event-filter.js';

/**
 * The event store port: the one interface the write side, projections and the webhook dispatcher
 * use. Two adapters implement it: embedded SQLite (src/adapters/sqlite) and EventStoreDB
 * (src/adapters/eventstoredb); test/contract/event-store.contract.ts is the behaviour both share.
 *
 * Choices (kept identical in both adapters unless noted):
 * - Revisions are 0-based per stream; a stream exists once it has an event. `expectedRevision`
 *   follows EventStoreDB: 'any', 'no_stream', 'stream_exists', or the exact revision of the last
 *   event. A mismatch throws WrongExpectedRevisionError carrying the actual revision.
 * - `append` takes at least one event (an empty list is a programming error: TypeError) and
 *   writes all of them or none. Event ids are UUIDs, generated when absent.
 * - Positions are bigints, strictly increasing in commit order across all streams, never reused.
 *   Embedded: an autoincrement integer (1, 2, ...). EventStoreDB: the event's commit position
 *   (for single appends commit == prepare position, so it is unique per event).
 *   `after` options are exclusive: "events whose position is greater than this".
 * - Reads and subscriptions never return system events (EventStoreDB types/streams starting `$`).
 * - Filters: `streamPrefixes` match if any prefix matches, `eventTypes` if any type matches; both
 *   given means both must match; an empty list is no constraint. readAll pages default to 1000.
 *   `partition` keeps the events of some parts of the log split by stream key (see streamPart).
 * - subscribeToAll delivers strictly one event at a time (awaits onEvent). If onEvent throws, the
 *   subscription stops and onError receives the error: the caller resumes from its checkpoint.
 *   Do not await `stop()` from inside onEvent (it waits for onEvent to finish).
 * - setStreamMaxCount bounds a stream: reads return at most the newest `maxCount` events; revisions
 *   keep counting. Embedded deletes the older rows; EventStoreDB hides them and scavenges later
 *   (so they may still appear in readAll there until a scavenge).
 * - Consumer groups are at-least-once. 'ack' settles an event; 'retry' (or a thrown handler)
 *   re-delivers the same event with retryCount + 1, and parks it once retryCount has reached
 *   maxRetries (default 10); 'park' parks it at once. The embedded store counts no retry for a
 *   handler's StorageUnavailableError (it delivers the event again after a growing wait);
 *   EventStoreDB counts each. A new group starts at the beginning of the log. Delivery is
 *   sequential and in global order (EventStoreDB: one consumer with buffer size 1, so order holds
 *   as long as one process consumes the group).
 * - Events the service cannot read (another tool's non-JSON events in EventStoreDB) are skipped and
 *   logged by every read, subscription and consumer group; they never stop the read side.
 * - EventStoreDB can read the log only from an event's position: a read after any other position
 *   throws LogPositionError (embedded positions are integers, and any of them is a place to read from).
 * - Nothing deletes streams: a stored event is never erased (DESIGN.md).
 * - A write that fails because the storage is full or failing throws StorageUnavailableError
 *   (the adapter's own error is its cause), so callers can tell "retry later" from a bug.
 * - A read the store refuses to this service (EventStoreDB's access control) throws
 *   StreamAccessDeniedError naming the stream; the embedded store refuses no read.
 */

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

/** Who caused an event. */
export type Actor = 'partner' | 'restaurant' | 'rider' | 'support' | 'sandbox' | 'system';

/**
 * The metadata the service writes on its events (docs/events.md, Metadata), built by `eventMetadata`
 * (src/application/event-metadata.ts) alone. The cause ids are there on whatever a request or another
 * event caused, the owner on a partner's data; the service's own bookkeeping (leases, storage
 * probes) carries only the actor and the schema version.
 */
export type EventMetadata = {
  partner_id?: string;
  environment?: Environment;
  /** Checkout sessions: the order the session pays. */
  order_id?: string;
  actor: Actor;
  request_id?: string | null;
  /** The caller's own X-Request-Id, when it sent a safe one. */
  client_request_id?: string;
  correlation_id?: string | null;
  causation_id?: string | null;
  schema_version: number;
  /** ISO 8601 UTC time of the decision (the events' `at`). */
  occurred_at?: string;
  /** Order events: the webhook event types the event causes, in the order they are sent (the events API lists them). */
  webhook_types?: string[];
};

/**
 * Metadata as a store holds it: the service writes EventMetadata, but the port stores any JSON
 * object (another tool's events, test fixtures), so readers check each field they use.
 */
export interface StoredMetadata {
  [k: string]: unknown;
}

export interface NewEvent {
  /** UUID; generated when absent. */
  id?: string;
  type: string;
  data: Record<string, unknown>;
  metadata: StoredMetadata;
}

/**
 * Read fields by name: an adapter may return class instances with accessor fields (the embedded
 * readStream parses `metadata` on first access), so spreading an event is not a copy of it.
 */
export interface RecordedEvent {
  id: string;
  streamId: string;
  type: string;
  revision: number;
  /** Global position; -1n only where EventStoreDB older than 22.6 does not report it on stream reads. */
  position: bigint;
  data: Record<string, unknown>;
  metadata: StoredMetadata;
  recordedAt: Date;
}

export interface AppendResult {
  /** Revision of the last appended event: pass it as the next expectedRevision. */
  nextExpectedRevision: number;
  /** Position of the last appended event. */
  position: bigint;
}

export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/**
 * A read asked for the log after a position that is not in it: past the head (the event store was
 * wiped or replaced while the read models kept their checkpoints) or, in EventStoreDB, between two
 * events. Retrying cannot help; an operator must rebuild the read models or restore the log.
 */
export class LogPositionError extends Refusal {
  override readonly name = 'LogPositionError';
  constructor(
    readonly position: bigint,
    readonly head: bigint,
  ) {
    super(
      position > head
        ? `Position ${position} is past the head of the event log (${head}): the event store was wiped or replaced ` +
            'under read models that kept their checkpoints. Restore the event store, or rebuild the read models.'
        : `Position ${position} is not the position of an event in the event log (head ${head}): the checkpoint ` +
            'does not belong to this event store. Restore the event store, or rebuild the read models.',
    );
  }
}

/**
 * A store cannot do its work because its storage is full or failing (disk full, I/O errors, a
 * server that cannot be reached). Every adapter maps its own such errors to this class, so the
 * layers above tell it from a bug without knowing the store: the request may succeed later, once
 * an operator has freed space, the store is back or, after a failed sync of the embedded log, the
 * service has been restarted. `reason` says which.
 */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
  constructor(
    readonly store: string,
    readonly reason: 'full' | 'io' | 'unreachable' | 'unsynced',
    options: { cause: unknown },
  ) {
    super(`the ${store} ${STORAGE_FAILURES[reason]}${codeOf(options.cause)}`, options);
  }
}

const STORAGE_FAILURES = {
  full: 'cannot write: its storage is full',
  io: 'cannot read or write: its storage reports I/O errors',
  unreachable: 'cannot be reached',
  unsynced: 'refuses writes until the service restarts: an fsync of its log failed',
} as const;

function codeOf(cause: unknown): string {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? ` (${code})` : '';
}

/**
 * The event store refuses this service a read of a stream (EventStoreDB's ACLs: `$` system streams
 * need rights the service's user may not have). Retrying cannot help; the caller says so instead of
 * failing as a bug. The adapter's own error is the cause.
 */
export class StreamAccessDeniedError extends Error {
  override readonly name = 'StreamAccessDeniedError';
  constructor(
    readonly streamId: string,
    options: { cause: unknown },
  ) {
    super(`the event store does not let this service read stream ${streamId} (access denied)`, options);
  }
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface ReadStreamOptions {
  /** First revision to read (forwards: lowest, backwards: highest). Defaults to the start / the end. */
  fromRevision?: number;
  maxCount?: number;
  backwards?: boolean;
}

export interface ReadAllOptions {
  after?: bigint;
  maxCount?: number;
  filter?: EventFilter;
}

export interface SubscribeToAllOptions {
  /** Deliver events after this position; from the start when absent. */
  after?: bigint;
  filter?: EventFilter;
  onEvent(e: RecordedEvent): Promise<void> | void;
  /** Called once, after the events present at subscription time have been delivered. */
  onCaughtUp?(): void;
  onError?(err: unknown): void;
}

export interface ConsumerGroupOptions {
  group: string;
  filter?: EventFilter;
  /** Deliveries after the first before an event is parked; default 10. */
  maxRetries?: number;
  /**
   * Events handled at once; default 1 (one at a time, in log order). With more, handlers run
   * concurrently and may finish out of order, so use it only where order does not matter; the
   * group never records progress past an event that is not settled.
   */
  concurrency?: number;
  /**
   * The longest a handler may take for one event, its own waits included; default 30 s. The store
   * does not hand the event to another consumer while its handler may still be running.
   */
  maxHandlerMs?: number;
  /** Handler exceptions (the event is then retried) and failures of the group's own I/O; it keeps going. */
  onError?(err: unknown): void;
}

export type ConsumerOutcome = 'ack' | 'retry' | 'park';
export type ConsumerHandler = (e: RecordedEvent, ctx: { retryCount: number }) => Promise<ConsumerOutcome>;

/** Durable, at-least-once; the group's position is stored by the store. */
export interface ConsumerGroup {
  /** Resolves once delivery has started; one active consumer per group and process. */
  start(handler: ConsumerHandler): Promise<void>;
  /** Stops delivery; waits for an in-flight handler to finish and records its outcome. */
  stop(): Promise<void>;
  /** Parked events in global order (inspection / manual replay). */
  parked(): Promise<RecordedEvent[]>;
  /**
   * The group's position: every event up to it is settled (0n before any). For lag metrics. Both
   * adapters store it lazily (EventStoreDB about a second behind the acks, the embedded one at most
   * 100 ms, longer while the write fails); the embedded one answers what this process has settled.
   */
  position(): Promise<bigint>;
}

/** Positions between the log's head and a consumer group's position (0 while there is no group). */
export async function consumerGroupLag(events: EventStore, group: ConsumerGroup | undefined): Promise<bigint> {
  if (!group) return 0n;
  const [head, position] = await Promise.all([events.headPosition(), group.position()]);
  return head > position ? head - position : 0n;
}

export interface StreamInfo {
  streamId: string;
  lastRevision: number;
}

/**
 * Names compare as the adapter orders them (the same order for the listing and for `after`), so
 * passing the last name of a page as `after` gives the next page: each stream once, none skipped.
 */
export interface ListStreamsOptions {
  /** Only streams whose name starts with this. */
  prefix?: string;
  /** At most this many streams (all when absent). */
  limit?: number;
  /** Only streams whose name is strictly greater than this: the last name of the previous page. */
  after?: string;
}

export interface AppendOptions {
  expectedRevision: ExpectedRevision;
  /**
   * 'durable' (the default): resolves once the events are durable. 'ordered': may resolve once
   * they are committed (every later read and append on the store sees them) but before they are
   * durable, with the promise that no later append on this store becomes durable without them.
   * For a write that only matters together with a later one the caller awaits (an idempotency
   * claim, then its order: the caller waits for the disk once instead of twice), or one nobody
   * waits for whose loss a later write would show (a consumer's reaction, stored before its
   * position). An adapter makes it durable soon without a durable write after it, but need not
   * spend a sync on it alone at once. Adapters whose commits are durable when acknowledged
   * (EventStoreDB) treat both alike.
   */
  durability?: 'durable' | 'ordered';
}

export interface EventStore {
  /** Atomic for several events. */
  append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult>;
  /** [] when the stream does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** One page in global order, positions strictly after `after`; fewer than `maxCount` only when no more match. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up, then live; strictly sequential delivery. */
  subscribeToAll(options: SubscribeToAllOptions): Subscription;
  /** Position of the newest event this store's readers see (0n when empty). */
  headPosition(): Promise<bigint>;
  /**
   * The position a read-your-writes wait must reach: every event an acknowledged write of any client
   * or process has put in the log. An adapter whose readers see the log only up to the commits it
   * has made durable (the embedded store: another process's acknowledged order can sit behind this
   * one's 'ordered' commit) answers the log's newest position when another's rows are held back,
   * and starts the sync that shows them, so the wait is one sync at most; when only its own are, the
   * readers' head (what it has not synced, nobody has been told of).
   */
  readYourWritesPosition(): Promise<bigint>;
  /**
   * Resolves once every event a read of this store could return when it was called is durable;
   * rejects when that cannot be made sure (the disk fails). An answer that rests on a write it
   * found rather than made (a retry finding its order; a command that decided nothing, or was
   * refused, because of what an earlier one did) waits for it, as that write's own answer did:
   * reads may return events committed with 'ordered', or by a writer whose sync is still running.
   * Adapters whose reads return only durable events (EventStoreDB) resolve at once.
   */
  whenDurable(): Promise<void>;
  /** Keep only the newest `maxCount` events of a stream (rider positions). */
  setStreamMaxCount(streamId: string, maxCount: number): Promise<void>;
  /** Streams with their last revision, ordered by name (stream browser); a page at a time with `after`. */
  listStreams(options?: ListStreamsOptions): Promise<StreamInfo[]>;
  consumerGroup(options: ConsumerGroupOptions): ConsumerGroup;
  /**
   * Embedded only: the log's SQLite file, which a worker thread of this process may read (read-only)
   * to share a catch-up; undefined for a temporary or in-memory log and for EventStoreDB.
   */
  readonly localFile?: string;
  /** Stops subscriptions and consumer groups, then releases the connection. */
  close(): Promise<void>;
}

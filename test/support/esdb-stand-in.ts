/**
 * EsdbStandIn: a small gRPC server that answers the calls our EventStoreDB adapter makes, built
 * from the service definitions @eventstore/db-client ships. It is a stand-in for tests of how the
 * adapter drives the real client (cancellation, errors, reconnection, what goes over the wire),
 * NOT EventStoreDB: passing against it says nothing about EventStoreDB's own semantics.
 *
 * What it does, in memory: ServerFeatures (advertises BatchAppend and persistent subscriptions to
 * $all); Streams.BatchAppend with expected-revision checks; Streams.Read for streams, $all and
 * subscriptions to $all (prefix / regex filters on stream name or event type); persistent
 * subscriptions to $all (Create, Update, Delete, GetInfo, Read with acks, nacks, retries, parking
 * and the consumer's buffer size). Reads respect HTTP/2 flow control: a call whose client stops
 * reading stays open, as on a real server. Every call, batch-append message, ack and nack and
 * group request is recorded for tests, and tests can inject faults (appendForeign,
 * endSubscriptions, deleteGroup, restart, denyReads).
 *
 * What it does not emulate: the storage engine (positions are synthetic: commit == prepare, growing
 * by a record's size), idempotent appends (the same event id appended twice is stored twice),
 * stream metadata semantics ($maxCount, ACLs), deletes and tombstones, Streams.Append (the client
 * uses BatchAppend while it is advertised and no per-call credentials are given), subscriptions
 * to a single stream and persistent subscriptions to a stream, filtered-subscription checkpoint
 * messages, message timeouts (recorded, never enforced), consumer strategies (every group hands the
 * next event to the first consumer with room), group checkpoints (a group's state survives
 * restart() exactly, so nothing acked is redelivered), the $streams projection (its link events are
 * written at once, with the event that creates a stream), statistics (GetInfo reports zeros),
 * authentication, TLS and deadlines.
 *
 * Positions: a read of $all from a position that is neither 0, an event's position nor at or past
 * the end of the log fails like EventStoreDB 23.10+ (UNKNOWN, "Trying to read from an invalid
 * position."); a forwards read from at or past the end returns nothing, as a real server does.
 */
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import codePb from '@eventstore/db-client/generated/code_pb.js';
import persistentGrpc from '@eventstore/db-client/generated/persistent_grpc_pb.js';
import persistentPb from '@eventstore/db-client/generated/persistent_pb.js';
import type * as P from '@eventstore/db-client/generated/persistent_pb.js';
import serverFeaturesGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import serverFeaturesPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import statusPb from '@eventstore/db-client/generated/status_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type * as S from '@eventstore/db-client/generated/streams_pb.js';

// The protobuf well-known types the client's generated code uses (google-protobuf is its dependency).
const requireFromClient = createRequire(createRequire(import.meta.url).resolve('@eventstore/db-client'));
const { Any } = requireFromClient(
  'google-protobuf/google/protobuf/any_pb.js',
) as typeof import('google-protobuf/google/protobuf/any_pb.js');
const { Empty } = requireFromClient(
  'google-protobuf/google/protobuf/empty_pb.js',
) as typeof import('google-protobuf/google/protobuf/empty_pb.js');

export interface StoredEvent {
  id: string;
  streamId: string;
  revision: bigint;
  /** Commit and prepare position (equal here). */
  position: bigint;
  type: string;
  contentType: string;
  data: Buffer;
  metadata: Buffer;
  created: Date;
}

export type StandInMethod =
  | 'GetSupportedMethods'
  | 'Read'
  | 'BatchAppend'
  | 'CreatePersistent'
  | 'UpdatePersistent'
  | 'DeletePersistent'
  | 'GetPersistentInfo'
  | 'ReadPersistent';

/** open -> ending (the stand-in ended it; trailers not sent yet) -> ended | errored; or cancelled (by the client), aborted (stop/restart). */
export type CallState = 'open' | 'ending' | 'ended' | 'errored' | 'cancelled' | 'aborted';

export interface ServerFilter {
  on: 'stream' | 'type';
  prefixes: string[];
  regex?: string;
}

export interface ReadInfo {
  /** 'subscription': a subscription to $all. */
  kind: 'stream' | 'all' | 'subscription';
  streamId?: string;
  /** A revision for stream reads, a position for $all. */
  from: 'start' | 'end' | bigint;
  direction: 'forwards' | 'backwards';
  count?: bigint;
  resolveLinks: boolean;
  filter?: ServerFilter;
}

export interface RecordedCall {
  id: number;
  method: StandInMethod;
  startedAt: number;
  /** Order among everything the stand-in records (calls, messages, settlements). */
  seq: number;
  state: CallState;
  endedSeq?: number;
  error?: string;
  read?: ReadInfo;
  persistent?: { group: string; bufferSize: number };
}

export interface ProposedEvent {
  id: string;
  type: string;
  contentType: string;
  data: Buffer;
  metadata: Buffer;
}

export interface BatchAppendMessage {
  callId: number;
  seq: number;
  correlationId: string;
  streamId?: string;
  events: ProposedEvent[];
  isFinal: boolean;
}

export interface Settlement {
  group: string;
  callId: number;
  seq: number;
  action: 'ack' | 'unknown' | 'park' | 'retry' | 'skip' | 'stop';
  ids: string[];
  reason?: string;
}

export interface Delivery {
  group: string;
  callId: number;
  seq: number;
  eventId: string;
  retryCount: number;
}

export interface GroupSettings {
  resolveLinks: boolean;
  extraStatistics: boolean;
  maxRetryCount: number;
  minCheckpointCount: number;
  maxCheckpointCount: number;
  maxSubscriberCount: number;
  liveBufferSize: number;
  readBatchSize: number;
  historyBufferSize: number;
  messageTimeoutMs: number;
  checkpointAfterMs: number;
  consumerStrategy: string;
}

export interface GroupRequest {
  op: 'create' | 'update' | 'delete';
  group: string;
  seq: number;
  settings?: GroupSettings;
  filter?: ServerFilter;
  startFrom?: 'start' | 'end' | bigint;
}

interface Tracked {
  rec: RecordedCall;
  failed: boolean;
  cleanups: Array<() => void>;
}

interface Outstanding {
  event: StoredEvent;
  retryCount: number;
}

interface Consumer {
  call: grpc.ServerDuplexStream<P.ReadReq, P.ReadResp>;
  t: Tracked;
  bufferSize: number;
  inFlight: Map<string, Outstanding>;
}

interface Group {
  name: string;
  settings: GroupSettings;
  filter?: ServerFilter;
  startFrom: 'start' | 'end' | bigint;
  cursor: number;
  retry: Outstanding[];
  consumers: Consumer[];
  parked: StoredEvent[];
}

interface LiveSubscription {
  call: grpc.ServerWritableStream<S.ReadReq, S.ReadResp>;
  t: Tracked;
  filter?: ServerFilter;
  cursor: number;
  caughtUp: boolean;
  pumping: boolean;
}

type Expected = 'any' | 'no_stream' | 'stream_exists' | bigint;

class RpcError extends Error {
  constructor(
    readonly code: grpc.status,
    readonly details: string,
    readonly metadata: grpc.Metadata,
  ) {
    super(details);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOG_START = 1024n; // the first event's position (a real log starts with its own records)
const STRATEGIES = ['DispatchToSingle', 'RoundRobin', 'Pinned'];
const NACK_ACTIONS = ['unknown', 'park', 'retry', 'skip', 'stop'] as const;

function rpcError(code: grpc.status, details: string, exception?: string, group?: string): RpcError {
  const metadata = new grpc.Metadata();
  if (exception) metadata.set('exception', exception);
  if (group !== undefined) {
    metadata.set('stream-name', '$all');
    metadata.set('group-name', group);
  }
  return new RpcError(code, details, metadata);
}

const groupMissing = (group: string): RpcError =>
  rpcError(
    grpc.status.NOT_FOUND,
    `Subscription group ${group} on stream $all does not exist.`,
    'persistent-subscription-does-not-exist',
    group,
  );

function text(bytes: Uint8Array | undefined): string {
  return bytes ? Buffer.from(bytes).toString('utf8') : '';
}

function uuid(id: string): InstanceType<typeof sharedPb.UUID> {
  return new sharedPb.UUID().setString(id);
}

function streamIdentifier(streamId: string): InstanceType<typeof sharedPb.StreamIdentifier> {
  return new sharedPb.StreamIdentifier().setStreamName(Buffer.from(streamId, 'utf8'));
}

function matches(filter: ServerFilter | undefined, e: StoredEvent): boolean {
  if (!filter) return true;
  const subject = filter.on === 'stream' ? e.streamId : e.type;
  if (filter.prefixes.length > 0) return filter.prefixes.some((p) => subject.startsWith(p));
  return filter.regex === undefined || new RegExp(filter.regex).test(subject);
}

interface FilterMessage {
  hasStreamIdentifier(): boolean;
  getStreamIdentifier(): { getRegex(): string; getPrefixList(): string[] } | undefined;
  getEventType(): { getRegex(): string; getPrefixList(): string[] } | undefined;
}

function filterFrom(f: FilterMessage): ServerFilter {
  const on = f.hasStreamIdentifier() ? 'stream' : 'type';
  const expression = on === 'stream' ? f.getStreamIdentifier() : f.getEventType();
  const regex = expression?.getRegex();
  return { on, prefixes: expression?.getPrefixList() ?? [], ...(regex ? { regex } : {}) };
}

interface SettingsMessage {
  getResolveLinks(): boolean;
  getExtraStatistics(): boolean;
  getMaxRetryCount(): number;
  getMinCheckpointCount(): number;
  getMaxCheckpointCount(): number;
  getMaxSubscriberCount(): number;
  getLiveBufferSize(): number;
  getReadBatchSize(): number;
  getHistoryBufferSize(): number;
  getMessageTimeoutMs(): number;
  getCheckpointAfterMs(): number;
  getNamedConsumerStrategy(): number;
}

function settingsFrom(s: SettingsMessage | undefined): GroupSettings {
  if (!s) throw rpcError(grpc.status.INVALID_ARGUMENT, 'settings are required');
  return {
    resolveLinks: s.getResolveLinks(),
    extraStatistics: s.getExtraStatistics(),
    maxRetryCount: s.getMaxRetryCount(),
    minCheckpointCount: s.getMinCheckpointCount(),
    maxCheckpointCount: s.getMaxCheckpointCount(),
    maxSubscriberCount: s.getMaxSubscriberCount(),
    liveBufferSize: s.getLiveBufferSize(),
    readBatchSize: s.getReadBatchSize(),
    historyBufferSize: s.getHistoryBufferSize(),
    messageTimeoutMs: s.getMessageTimeoutMs(),
    checkpointAfterMs: s.getCheckpointAfterMs(),
    consumerStrategy: STRATEGIES[s.getNamedConsumerStrategy()] ?? 'DispatchToSingle',
  };
}

interface PositionOptions {
  hasPosition(): boolean;
  getPosition(): { getCommitPosition(): string } | undefined;
  hasEnd(): boolean;
}

function startFrom(o: PositionOptions | undefined): 'start' | 'end' | bigint {
  if (o?.hasPosition()) return BigInt(o.getPosition()?.getCommitPosition() ?? '0');
  return o?.hasEnd() ? 'end' : 'start';
}

interface RecordedEventMessage {
  setId(value?: InstanceType<typeof sharedPb.UUID>): unknown;
  setStreamIdentifier(value?: InstanceType<typeof sharedPb.StreamIdentifier>): unknown;
  setStreamRevision(value: string): unknown;
  setPreparePosition(value: string): unknown;
  setCommitPosition(value: string): unknown;
  getMetadataMap(): { set(key: string, value: string): unknown };
  setData(value: Uint8Array): unknown;
  setCustomMetadata(value: Uint8Array): unknown;
}

function recorded<M extends RecordedEventMessage>(m: M, e: StoredEvent): M {
  m.setId(uuid(e.id));
  m.setStreamIdentifier(streamIdentifier(e.streamId));
  m.setStreamRevision(String(e.revision));
  m.setPreparePosition(String(e.position));
  m.setCommitPosition(String(e.position));
  const map = m.getMetadataMap();
  map.set('type', e.type);
  map.set('content-type', e.contentType);
  map.set('created', String(BigInt(e.created.getTime()) * 10_000n)); // .NET ticks since the epoch
  m.setData(e.data);
  m.setCustomMetadata(e.metadata);
  return m;
}

function waitForDrain(call: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      call.off('drain', done);
      call.off('cancelled', done);
      resolve();
    };
    call.on('drain', done);
    call.on('cancelled', done);
  });
}

export class EsdbStandIn {
  private server: grpc.Server;
  private seq = 0;
  private nextCallId = 1;
  private readonly log: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private nextPosition = LOG_START;
  private readonly live = new Set<LiveSubscription>();
  private readonly groups = new Map<string, Group>();
  private readonly tracked: Tracked[] = [];
  private deniedReads: (streamId: string) => boolean = () => false;
  /** Every call the stand-in answered, in the order they started. */
  readonly calls: RecordedCall[] = [];
  /** Every BatchAppend request message received. */
  readonly appendRequests: BatchAppendMessage[] = [];
  /** Acks and nacks received on persistent-subscription reads. */
  readonly settlements: Settlement[] = [];
  /** Events sent to persistent-subscription consumers. */
  readonly deliveries: Delivery[] = [];
  /** Create / Update / Delete of persistent subscriptions, with the settings each sent. */
  readonly groupRequests: GroupRequest[] = [];

  private boundPort = 0;

  private constructor(private readonly maxConcurrentStreams: number | undefined) {
    this.server = this.createServer();
  }

  /** Listens on 127.0.0.1 (`port` 0 or absent: a free port); `maxConcurrentStreams` caps streams per connection. */
  static async start(options: { maxConcurrentStreams?: number; port?: number } = {}): Promise<EsdbStandIn> {
    const standIn = new EsdbStandIn(options.maxConcurrentStreams);
    standIn.boundPort = await standIn.bind(options.port ?? 0);
    return standIn;
  }

  get port(): number {
    return this.boundPort;
  }

  /** A connection string the client accepts (insecure, single node). */
  get url(): string {
    return `esdb://127.0.0.1:${this.port}?tls=false`;
  }

  /** Closes every connection at once (no goodbye) and stops listening. */
  async stop(): Promise<void> {
    this.abortAll();
  }

  /** Closes every connection abruptly and listens again on the same port, with the same state. */
  async restart(): Promise<void> {
    this.abortAll();
    this.server = this.createServer();
    await this.bind(this.port);
  }

  /** Calls still open (the stand-in may have ended them but cannot send the end yet). */
  openCalls(method?: StandInMethod): RecordedCall[] {
    return this.calls.filter((c) => (c.state === 'open' || c.state === 'ending') && (!method || c.method === method));
  }

  /** The log in order, or one stream's events. */
  events(streamId?: string): StoredEvent[] {
    return streamId === undefined ? [...this.log] : [...(this.streams.get(streamId) ?? [])];
  }

  /** A persistent subscription's current state (undefined when it does not exist). */
  group(
    name: string,
  ): { settings: GroupSettings; filter?: ServerFilter; parked: StoredEvent[]; consumers: number } | undefined {
    const g = this.groups.get(name);
    return (
      g && {
        settings: g.settings,
        ...(g.filter ? { filter: g.filter } : {}),
        parked: [...g.parked],
        consumers: g.consumers.length,
      }
    );
  }

  /** Appends an event as another tool would (any content type, any stream), with no checks. */
  appendForeign(
    streamId: string,
    event: { type: string; contentType: string; data: Uint8Array; metadata?: Uint8Array; id?: string },
  ): StoredEvent {
    const proposed = {
      id: event.id ?? randomUUID(),
      type: event.type,
      contentType: event.contentType,
      data: Buffer.from(event.data),
      metadata: Buffer.from(event.metadata ?? new Uint8Array()),
    };
    const written = this.commit(streamId, 'any', [proposed]);
    if (!('events' in written)) throw new Error('unreachable');
    return written.events[0]!;
  }

  /** Ends every open subscription to $all cleanly (status OK, no error); returns how many. */
  endSubscriptions(): number {
    const subs = [...this.live];
    for (const sub of subs) this.end(sub.call, sub.t);
    return subs.length;
  }

  /**
   * Stream reads of the streams `predicate` picks fail from now on, whether the stream exists or
   * not, as EventStoreDB refuses a user without read rights (its `$` system streams by default):
   * PERMISSION_DENIED with the trailer `exception: access-denied`. Replaces an earlier predicate.
   */
  denyReads(predicate: (streamId: string) => boolean): void {
    this.deniedReads = predicate;
  }

  /** Deletes a persistent subscription as an operator would: its consumers' reads fail. */
  deleteGroup(name: string): void {
    const g = this.groups.get(name);
    if (!g) throw new Error(`no group ${name}`);
    this.groupRequests.push({ op: 'delete', group: name, seq: ++this.seq });
    this.dropGroup(g);
  }

  // --- server plumbing ------------------------------------------------------------------------

  private createServer(): grpc.Server {
    const server = new grpc.Server(
      this.maxConcurrentStreams === undefined ? {} : { 'grpc.max_concurrent_streams': this.maxConcurrentStreams },
    );
    server.addService(serverFeaturesGrpc.ServerFeaturesService, {
      getSupportedMethods: this.unary('GetSupportedMethods', () => this.supportedMethods()),
    });
    const unimplemented = (_call: unknown, callback: grpc.sendUnaryData<never>): void =>
      callback({ code: grpc.status.UNIMPLEMENTED, details: 'not emulated by the stand-in' });
    server.addService(streamsGrpc.StreamsService, {
      read: (call: grpc.ServerWritableStream<S.ReadReq, S.ReadResp>) => void this.read(call),
      batchAppend: (call: grpc.ServerDuplexStream<S.BatchAppendReq, S.BatchAppendResp>) => this.batchAppend(call),
      append: unimplemented,
      delete: unimplemented,
      tombstone: unimplemented,
    });
    server.addService(persistentGrpc.PersistentSubscriptionsService, {
      create: this.unary('CreatePersistent', (req: P.CreateReq) => this.createGroup(req)),
      update: this.unary('UpdatePersistent', (req: P.UpdateReq) => this.updateGroup(req)),
      delete: this.unary('DeletePersistent', (req: P.DeleteReq) => this.deleteGroupRequest(req)),
      getInfo: this.unary('GetPersistentInfo', (req: P.GetInfoReq) => this.groupInfo(req)),
      read: (call: grpc.ServerDuplexStream<P.ReadReq, P.ReadResp>) => this.persistentRead(call),
      replayParked: unimplemented,
      list: unimplemented,
      restartSubsystem: unimplemented,
    });
    return server;
  }

  private async bind(port: number): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await new Promise<number>((resolve, reject) =>
          this.server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
            err ? reject(err) : resolve(bound),
          ),
        );
      } catch (err) {
        // Rebinding the port just released by restart() can race the old listener's close.
        if (port === 0 || attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  private abortAll(): void {
    for (const t of this.tracked) this.settle(t, 'aborted');
    this.server.forceShutdown();
  }

  private track(
    method: StandInMethod,
    call: NodeJS.EventEmitter | undefined,
    extra: Partial<RecordedCall> = {},
  ): Tracked {
    const rec: RecordedCall = {
      id: this.nextCallId++,
      method,
      startedAt: Date.now(),
      seq: ++this.seq,
      state: 'open',
      ...extra,
    };
    const t: Tracked = { rec, failed: false, cleanups: [] };
    this.calls.push(rec);
    this.tracked.push(t);
    // grpc-js emits 'cancelled' once the call's stream is done: after the status went out, or
    // when the client cancelled or the connection went.
    call?.on('cancelled', () => this.settle(t, 'cancelled'));
    return t;
  }

  private settle(t: Tracked, how: 'cancelled' | 'aborted' | 'done'): void {
    const { rec } = t;
    if (rec.state === 'open') rec.state = how === 'done' ? 'ended' : how;
    else if (rec.state === 'ending') rec.state = how === 'aborted' ? 'aborted' : t.failed ? 'errored' : 'ended';
    else return;
    rec.endedSeq = ++this.seq;
    const index = this.tracked.indexOf(t);
    if (index >= 0) this.tracked.splice(index, 1);
    for (const cleanup of t.cleanups.splice(0)) cleanup();
  }

  private end(
    call: grpc.ServerWritableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>,
    t: Tracked,
    error?: RpcError,
  ): void {
    if (t.rec.state !== 'open') return;
    t.rec.state = 'ending';
    if (error) {
      t.failed = true;
      t.rec.error = error.details;
      call.emit('error', { code: error.code, details: error.details, metadata: error.metadata });
    } else call.end();
  }

  private unary<Req, Resp>(method: StandInMethod, handle: (req: Req) => Resp) {
    return (call: grpc.ServerUnaryCall<Req, Resp>, callback: grpc.sendUnaryData<Resp>): void => {
      const t = this.track(method, undefined);
      try {
        const resp = handle(call.request);
        this.settle(t, 'done');
        callback(null, resp);
      } catch (caught) {
        const err = caught instanceof RpcError ? caught : rpcError(grpc.status.UNKNOWN, String(caught));
        t.failed = true;
        t.rec.error = err.details;
        t.rec.state = 'ending';
        this.settle(t, 'done');
        callback({ code: err.code, details: err.details, metadata: err.metadata });
      }
    };
  }

  private supportedMethods(): InstanceType<typeof serverFeaturesPb.SupportedMethods> {
    const method = (
      service: string,
      name: string,
      features: string[],
    ): InstanceType<typeof serverFeaturesPb.SupportedMethod> =>
      new serverFeaturesPb.SupportedMethod().setServiceName(service).setMethodName(name).setFeaturesList(features);
    const streams = 'event_store.client.streams.streams';
    const persistent = 'event_store.client.persistent_subscriptions.persistentsubscriptions';
    return new serverFeaturesPb.SupportedMethods()
      .setEventStoreServerVersion('23.10.0')
      .setMethodsList([
        method(streams, 'read', ['position', 'events']),
        method(streams, 'batchappend', ['deadline_duration']),
        ...['create', 'update', 'delete', 'read', 'getinfo'].map((name) => method(persistent, name, ['stream', 'all'])),
      ]);
  }

  // --- the log --------------------------------------------------------------------------------

  private commit(
    streamId: string,
    expected: Expected,
    proposed: ProposedEvent[],
  ): { events: StoredEvent[]; last: StoredEvent } | { current: bigint | undefined } {
    const stream = this.streams.get(streamId);
    const current = stream ? BigInt(stream.length - 1) : undefined;
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === undefined) ||
      (expected === 'stream_exists' && current !== undefined) ||
      expected === current;
    if (!ok) return { current };
    const events = proposed.map((p, i) => this.write(streamId, BigInt(stream?.length ?? 0) + BigInt(i), p));
    // The $streams system projection: one link per new stream ("0@<stream>"), itself in $all.
    if (!stream && !streamId.startsWith('$')) {
      this.write('$streams', BigInt(this.streams.get('$streams')?.length ?? 0), {
        id: randomUUID(),
        type: '$>',
        contentType: 'application/octet-stream',
        data: Buffer.from(`0@${streamId}`),
        metadata: Buffer.alloc(0),
      });
    }
    for (const sub of this.live) void this.pump(sub);
    for (const g of this.groups.values()) this.dispatch(g);
    return { events, last: events[events.length - 1]! };
  }

  private write(streamId: string, revision: bigint, p: ProposedEvent): StoredEvent {
    const e: StoredEvent = { ...p, streamId, revision, position: this.nextPosition, created: new Date() };
    this.nextPosition +=
      128n + BigInt(Buffer.byteLength(streamId) + Buffer.byteLength(p.type) + p.data.length + p.metadata.length);
    this.log.push(e);
    const stream = this.streams.get(streamId) ?? [];
    stream.push(e);
    this.streams.set(streamId, stream);
    return e;
  }

  private validPosition(position: bigint): boolean {
    return position === 0n || position >= this.nextPosition || this.log.some((e) => e.position === position);
  }

  // --- Streams.BatchAppend ----------------------------------------------------------------------

  private batchAppend(call: grpc.ServerDuplexStream<S.BatchAppendReq, S.BatchAppendResp>): void {
    const t = this.track('BatchAppend', call);
    const pending = new Map<string, { streamId: string; expected: Expected; events: ProposedEvent[] }>();
    call.on('data', (req: S.BatchAppendReq) => {
      if (t.rec.state !== 'open') return;
      const correlationId = req.getCorrelationId()?.getString() ?? '';
      const options = req.getOptions();
      const events = req.getProposedMessagesList().map((m) => ({
        id: m.getId()?.getString() ?? '',
        type: m.getMetadataMap().get('type') ?? '',
        contentType: m.getMetadataMap().get('content-type') ?? 'application/octet-stream',
        data: Buffer.from(m.getData_asU8()),
        metadata: Buffer.from(m.getCustomMetadata_asU8()),
      }));
      let entry = pending.get(correlationId);
      if (!entry && options) {
        const expected: Expected = options.hasStreamPosition()
          ? BigInt(options.getStreamPosition())
          : options.hasNoStream()
            ? 'no_stream'
            : options.hasStreamExists()
              ? 'stream_exists'
              : 'any';
        entry = { streamId: text(options.getStreamIdentifier()?.getStreamName_asU8()), expected, events: [] };
        pending.set(correlationId, entry);
      }
      this.appendRequests.push({
        callId: t.rec.id,
        seq: ++this.seq,
        correlationId,
        ...(entry ? { streamId: entry.streamId } : {}),
        events,
        isFinal: req.getIsFinal(),
      });
      if (!entry)
        return this.end(
          call,
          t,
          rpcError(grpc.status.INVALID_ARGUMENT, 'the first message of an append carries its options'),
        );
      entry.events.push(...events);
      if (!req.getIsFinal()) return;
      pending.delete(correlationId);
      if (entry.events.some((e) => !UUID.test(e.id))) {
        return this.end(
          call,
          t,
          rpcError(grpc.status.INVALID_ARGUMENT, `invalid event id in an append to ${entry.streamId}`),
        );
      }
      const resp = new streamsPb.BatchAppendResp()
        .setCorrelationId(uuid(correlationId))
        .setStreamIdentifier(streamIdentifier(entry.streamId));
      const result = this.commit(entry.streamId, entry.expected, entry.events);
      if ('last' in result) {
        // Like EventStoreDB: the position of the append's last event.
        const position = new sharedPb.AllStreamPosition()
          .setCommitPosition(String(result.last.position))
          .setPreparePosition(String(result.last.position));
        resp.setSuccess(
          new streamsPb.BatchAppendResp.Success()
            .setCurrentRevision(String(result.last.revision))
            .setPosition(position),
        );
      } else {
        const wrong = new sharedPb.WrongExpectedVersion();
        if (result.current !== undefined) wrong.setCurrentStreamRevision(String(result.current));
        else wrong.setCurrentNoStream(new Empty());
        if (typeof entry.expected === 'bigint') wrong.setExpectedStreamPosition(String(entry.expected));
        else if (entry.expected === 'no_stream') wrong.setExpectedNoStream(new Empty());
        else if (entry.expected === 'stream_exists') wrong.setExpectedStreamExists(new Empty());
        const details = new Any();
        details.pack(wrong.serializeBinary(), 'event_store.client.WrongExpectedVersion');
        const status = new statusPb.Status()
          .setCode(codePb.Code.FAILED_PRECONDITION)
          .setMessage('WrongExpectedVersion')
          .setDetails(details);
        resp.setError(status);
      }
      call.write(resp);
    });
    call.on('end', () => this.end(call, t));
  }

  // --- Streams.Read -------------------------------------------------------------------------------

  private async read(call: grpc.ServerWritableStream<S.ReadReq, S.ReadResp>): Promise<void> {
    const o = call.request.getOptions();
    if (!o)
      return this.end(call, this.track('Read', call), rpcError(grpc.status.INVALID_ARGUMENT, 'a read needs options'));
    const all = o.getAll();
    const stream = o.getStream();
    const info: ReadInfo = {
      kind: o.hasSubscription() ? 'subscription' : all ? 'all' : 'stream',
      ...(stream ? { streamId: text(stream.getStreamIdentifier()?.getStreamName_asU8()) } : {}),
      from: all
        ? startFrom(all)
        : stream?.hasRevision()
          ? BigInt(stream.getRevision())
          : stream?.hasEnd()
            ? 'end'
            : 'start',
      direction: o.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS ? 'backwards' : 'forwards',
      ...(o.hasSubscription() ? {} : { count: BigInt(o.getCount()) }),
      resolveLinks: o.getResolveLinks(),
      ...(o.hasFilter() ? { filter: filterFrom(o.getFilter()!) } : {}),
    };
    const t = this.track('Read', call, { read: info });
    if (info.kind === 'stream') return this.readStream(call, t, info);
    if (!all)
      return this.end(
        call,
        t,
        rpcError(grpc.status.UNIMPLEMENTED, 'stream subscriptions are not emulated by the stand-in'),
      );
    if (typeof info.from === 'bigint' && !this.validPosition(info.from)) {
      return this.end(call, t, rpcError(grpc.status.UNKNOWN, 'Trying to read from an invalid position.'));
    }
    if (info.kind === 'subscription') return this.subscribe(call, t, info);
    const from = info.from;
    let events = this.log;
    if (info.direction === 'forwards') {
      if (typeof from === 'bigint') events = events.filter((e) => e.position >= from);
      else if (from === 'end') events = [];
    } else {
      events = (typeof from === 'bigint' ? events.filter((e) => e.position < from) : from === 'start' ? [] : events)
        .slice()
        .reverse();
    }
    await this.send(call, t, events.slice(0, Number(info.count)), info, true);
  }

  private async readStream(
    call: grpc.ServerWritableStream<S.ReadReq, S.ReadResp>,
    t: Tracked,
    info: ReadInfo,
  ): Promise<void> {
    if (this.deniedReads(info.streamId ?? ''))
      return this.end(call, t, rpcError(grpc.status.PERMISSION_DENIED, 'Access Denied', 'access-denied'));
    const stream = this.streams.get(info.streamId ?? '');
    if (!stream) {
      const notFound = new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(
        streamIdentifier(info.streamId ?? ''),
      );
      call.write(new streamsPb.ReadResp().setStreamNotFound(notFound));
      return this.end(call, t);
    }
    const from = info.from;
    const events =
      info.direction === 'forwards'
        ? stream.filter((e) => typeof from !== 'bigint' || e.revision >= from).filter(() => from !== 'end')
        : stream
            .filter((e) => typeof from !== 'bigint' || e.revision <= from)
            .filter(() => from !== 'start')
            .reverse();
    await this.send(call, t, events.slice(0, Number(info.count)), info, false);
  }

  private readEvent(
    e: StoredEvent,
    resolveLinks: boolean,
    withPosition: boolean,
  ): InstanceType<typeof streamsPb.ReadResp.ReadEvent> {
    const readEvent = new streamsPb.ReadResp.ReadEvent();
    const target = resolveLinks && e.type === '$>' ? this.linkTarget(e) : e;
    if (target) readEvent.setEvent(recorded(new streamsPb.ReadResp.ReadEvent.RecordedEvent(), target));
    if (target !== e) readEvent.setLink(recorded(new streamsPb.ReadResp.ReadEvent.RecordedEvent(), e));
    if (withPosition) readEvent.setCommitPosition(String(e.position));
    else readEvent.setNoPosition(new sharedPb.Empty());
    return readEvent;
  }

  private linkTarget(link: StoredEvent): StoredEvent | undefined {
    const [revision, ...name] = link.data.toString('utf8').split('@');
    return this.streams.get(name.join('@'))?.[Number(revision)];
  }

  /** Writes events at the pace the client reads them (HTTP/2 flow control), then ends the call. */
  private async send(
    call: grpc.ServerWritableStream<S.ReadReq, S.ReadResp>,
    t: Tracked,
    events: StoredEvent[],
    info: ReadInfo,
    withPosition: boolean,
  ): Promise<void> {
    for (const e of events) {
      if (t.rec.state !== 'open') return;
      if (!call.write(new streamsPb.ReadResp().setEvent(this.readEvent(e, info.resolveLinks, withPosition))))
        await waitForDrain(call);
    }
    this.end(call, t);
  }

  private subscribe(call: grpc.ServerWritableStream<S.ReadReq, S.ReadResp>, t: Tracked, info: ReadInfo): void {
    const from = info.from;
    // A subscription delivers the events after its position.
    const cursor =
      typeof from === 'bigint'
        ? this.log.filter((e) => e.position <= from).length
        : from === 'end'
          ? this.log.length
          : 0;
    const sub: LiveSubscription = {
      call,
      t,
      ...(info.filter ? { filter: info.filter } : {}),
      cursor,
      caughtUp: false,
      pumping: false,
    };
    call.write(
      new streamsPb.ReadResp().setConfirmation(
        new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID()),
      ),
    );
    this.live.add(sub);
    t.cleanups.push(() => this.live.delete(sub));
    void this.pump(sub);
  }

  private async pump(sub: LiveSubscription): Promise<void> {
    if (sub.pumping) return; // the running pump sees what was appended meanwhile
    sub.pumping = true;
    try {
      while (sub.t.rec.state === 'open') {
        const e = this.log[sub.cursor];
        if (!e) break;
        sub.cursor++;
        if (!matches(sub.filter, e)) continue;
        if (!sub.call.write(new streamsPb.ReadResp().setEvent(this.readEvent(e, false, true))))
          await waitForDrain(sub.call);
      }
      if (!sub.caughtUp && sub.t.rec.state === 'open') {
        sub.caughtUp = true;
        sub.call.write(new streamsPb.ReadResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp()));
      }
    } finally {
      sub.pumping = false;
    }
  }

  // --- persistent subscriptions -------------------------------------------------------------------

  private createGroup(req: P.CreateReq): InstanceType<typeof persistentPb.CreateResp> {
    const o = req.getOptions();
    const all = o?.getAll();
    if (!o || !all)
      throw rpcError(grpc.status.UNIMPLEMENTED, 'persistent subscriptions to streams are not emulated by the stand-in');
    const name = o.getGroupName();
    const request: GroupRequest = {
      op: 'create',
      group: name,
      seq: ++this.seq,
      settings: settingsFrom(o.getSettings()),
      startFrom: startFrom(all),
    };
    if (all.hasFilter()) request.filter = filterFrom(all.getFilter()!);
    this.groupRequests.push(request);
    if (this.groups.has(name)) {
      throw rpcError(
        grpc.status.ALREADY_EXISTS,
        `Subscription group ${name} on stream $all exists.`,
        'persistent-subscription-exists',
        name,
      );
    }
    const from = request.startFrom!;
    const cursor =
      typeof from === 'bigint'
        ? this.log.filter((e) => e.position < from).length
        : from === 'end'
          ? this.log.length
          : 0;
    this.groups.set(name, {
      name,
      settings: request.settings!,
      ...(request.filter ? { filter: request.filter } : {}),
      startFrom: from,
      cursor,
      retry: [],
      consumers: [],
      parked: [],
    });
    return new persistentPb.CreateResp();
  }

  private updateGroup(req: P.UpdateReq): InstanceType<typeof persistentPb.UpdateResp> {
    const o = req.getOptions();
    const name = o?.getGroupName() ?? '';
    const settings = settingsFrom(o?.getSettings());
    this.groupRequests.push({
      op: 'update',
      group: name,
      seq: ++this.seq,
      settings,
      startFrom: startFrom(o?.getAll()),
    });
    const g = this.groups.get(name);
    if (!g) throw groupMissing(name);
    g.settings = settings;
    // EventStoreDB restarts the group on an update: its consumers are disconnected.
    for (const c of [...g.consumers]) this.end(c.call, c.t, groupMissing(name));
    return new persistentPb.UpdateResp();
  }

  private deleteGroupRequest(req: P.DeleteReq): InstanceType<typeof persistentPb.DeleteResp> {
    const name = req.getOptions()?.getGroupName() ?? '';
    this.groupRequests.push({ op: 'delete', group: name, seq: ++this.seq });
    const g = this.groups.get(name);
    if (!g) throw groupMissing(name);
    this.dropGroup(g);
    return new persistentPb.DeleteResp();
  }

  private dropGroup(g: Group): void {
    this.groups.delete(g.name);
    for (const c of [...g.consumers]) this.end(c.call, c.t, groupMissing(g.name));
  }

  private groupInfo(req: P.GetInfoReq): InstanceType<typeof persistentPb.GetInfoResp> {
    const name = req.getOptions()?.getGroupName() ?? '';
    const g = this.groups.get(name);
    if (!g) throw groupMissing(name);
    const s = g.settings;
    const from =
      g.startFrom === 'start' ? 'C:0/P:0' : g.startFrom === 'end' ? 'C:-1/P:-1' : `C:${g.startFrom}/P:${g.startFrom}`;
    const info = new persistentPb.SubscriptionInfo()
      .setEventSource('$all')
      .setGroupName(name)
      .setStatus('Live')
      .setStartFrom(from)
      .setResolveLinkTos(s.resolveLinks)
      .setExtraStatistics(s.extraStatistics)
      .setMessageTimeoutMilliseconds(s.messageTimeoutMs)
      .setMaxRetryCount(s.maxRetryCount)
      .setLiveBufferSize(s.liveBufferSize)
      .setBufferSize(s.historyBufferSize)
      .setReadBatchSize(s.readBatchSize)
      .setCheckPointAfterMilliseconds(s.checkpointAfterMs)
      .setMinCheckPointCount(s.minCheckpointCount)
      .setMaxCheckPointCount(s.maxCheckpointCount)
      .setNamedConsumerStrategy(s.consumerStrategy)
      .setMaxSubscriberCount(s.maxSubscriberCount)
      .setTotalItems('0')
      .setCountSinceLastMeasurement('0')
      .setLiveBufferCount('0')
      .setParkedMessageCount(String(g.parked.length))
      .setConnectionsList(
        g.consumers.map((c) =>
          new persistentPb.SubscriptionInfo.ConnectionInfo()
            .setFrom('127.0.0.1')
            .setTotalItems('0')
            .setCountSinceLastMeasurement('0')
            .setAvailableSlots(c.bufferSize - c.inFlight.size)
            .setInFlightMessages(c.inFlight.size),
        ),
      );
    return new persistentPb.GetInfoResp().setSubscriptionInfo(info);
  }

  private persistentRead(call: grpc.ServerDuplexStream<P.ReadReq, P.ReadResp>): void {
    const t = this.track('ReadPersistent', call);
    let consumer: Consumer | undefined;
    call.on('data', (req: P.ReadReq) => {
      if (t.rec.state !== 'open') return;
      const options = req.getOptions();
      if (options) {
        const group = options.getGroupName();
        t.rec.persistent = { group, bufferSize: options.getBufferSize() };
        const g = this.groups.get(group);
        if (!g) return this.end(call, t, groupMissing(group));
        const confirmation = new persistentPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(`$all::${group}`);
        call.write(new persistentPb.ReadResp().setSubscriptionConfirmation(confirmation));
        const c: Consumer = { call, t, bufferSize: Math.max(1, options.getBufferSize()), inFlight: new Map() };
        consumer = c;
        g.consumers.push(c);
        t.cleanups.push(() => this.removeConsumer(g, c));
        return this.dispatch(g);
      }
      const group = t.rec.persistent?.group ?? '';
      const g = this.groups.get(group);
      const ack = req.getAck();
      const nack = req.getNack();
      const ids = (ack ?? nack)?.getIdsList().map((id) => id.getString()) ?? [];
      const action = ack ? 'ack' : (NACK_ACTIONS[nack?.getAction() ?? 0] ?? 'unknown');
      this.settlements.push({
        group,
        callId: t.rec.id,
        seq: ++this.seq,
        action,
        ids,
        ...(nack ? { reason: nack.getReason() } : {}),
      });
      if (!consumer || !g) return;
      for (const id of ids) {
        const message = consumer.inFlight.get(id);
        if (!message) continue;
        consumer.inFlight.delete(id);
        if (action === 'retry' && message.retryCount < g.settings.maxRetryCount)
          this.retryLater(g, { event: message.event, retryCount: message.retryCount + 1 });
        else if (action === 'retry' || action === 'park') this.park(g, message.event);
      }
      this.dispatch(g);
    });
    call.on('end', () => this.end(call, t));
  }

  private removeConsumer(g: Group, c: Consumer): void {
    g.consumers.splice(g.consumers.indexOf(c), 1);
    // A consumer that goes away leaves its unsettled events to be retried.
    for (const message of c.inFlight.values())
      this.retryLater(g, { event: message.event, retryCount: message.retryCount + 1 });
    c.inFlight.clear();
    if (this.groups.get(g.name) === g) this.dispatch(g);
  }

  private retryLater(g: Group, message: Outstanding): void {
    g.retry.push(message);
    g.retry.sort((a, b) => (a.event.position < b.event.position ? -1 : 1));
  }

  private park(g: Group, event: StoredEvent): void {
    g.parked.push(event);
    const stream = `$persistentsubscription-$all::${g.name}-parked`;
    this.commit(stream, 'any', [
      {
        id: randomUUID(),
        type: '$>',
        contentType: 'application/octet-stream',
        data: Buffer.from(`${event.revision}@${event.streamId}`),
        metadata: Buffer.alloc(0),
      },
    ]);
  }

  /** Hands out events while a consumer has room: retries first, then the log in order. */
  private dispatch(g: Group): void {
    for (;;) {
      const consumer = g.consumers.find((c) => c.t.rec.state === 'open' && c.inFlight.size < c.bufferSize);
      if (!consumer) return;
      let next = g.retry.shift();
      while (!next && g.cursor < this.log.length) {
        const e = this.log[g.cursor++]!;
        if (matches(g.filter, e)) next = { event: e, retryCount: 0 };
      }
      if (!next) return;
      consumer.inFlight.set(next.event.id, next);
      this.deliveries.push({
        group: g.name,
        callId: consumer.t.rec.id,
        seq: ++this.seq,
        eventId: next.event.id,
        retryCount: next.retryCount,
      });
      const readEvent = new persistentPb.ReadResp.ReadEvent()
        .setEvent(recorded(new persistentPb.ReadResp.ReadEvent.RecordedEvent(), next.event))
        .setCommitPosition(String(next.event.position))
        .setRetryCount(next.retryCount);
      consumer.call.write(new persistentPb.ReadResp().setEvent(readEvent));
    }
  }
}

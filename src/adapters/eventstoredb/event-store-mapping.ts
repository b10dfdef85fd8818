import {
  ANY,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  AccessDeniedError,
  DeadlineExceededError,
  UnavailableError,
  WrongExpectedVersionError,
  convertToCommandError,
  eventTypeFilter,
  excludeSystemEvents,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type Filter,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  StorageUnavailableError,
  StreamAccessDeniedError,
  WrongExpectedRevisionError,
  type ExpectedRevision,
  type RecordedEvent,
  type StoredMetadata,
} from '../../ports/event-store.js';
import { matchesFilter as matchesStreamFilter, type EventFilter } from '../../ports/event-filter.js';
import { copy } from '../../shared/objects.js';

export function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

/**
 * WrongExpectedVersionError -> the port's error (with the actual revision); a server that cannot be
 * reached -> StorageUnavailableError; anything else unchanged.
 */
export function mapAppendError(err: unknown, streamId: string, expected: ExpectedRevision): unknown {
  if (!(err instanceof WrongExpectedVersionError)) return mapUnreachable(err);
  const actual = typeof err.actualVersion === 'bigint' ? Number(err.actualVersion) : 'no_stream';
  return new WrongExpectedRevisionError(streamId, expected, actual);
}

/**
 * A server that cannot be reached (no connection, or no answer before the deadline) ->
 * StorageUnavailableError, for reads as for writes: callers answer 503 instead of 500 and the
 * storage watch notices; anything else unchanged.
 */
export function mapUnreachable(err: unknown): unknown {
  // The batch-append path rejects with the raw gRPC error (status 14 when there is no connection).
  const typed = err instanceof Error ? convertToCommandError(err) : err;
  if (typed instanceof UnavailableError || typed instanceof DeadlineExceededError) {
    return new StorageUnavailableError('event store', 'unreachable', { cause: err });
  }
  return err;
}

/**
 * A read of `streamId` the server refuses (AccessDeniedError: the user lacks the stream's read
 * rights, as for `$` system streams without admin rights) -> StreamAccessDeniedError naming the
 * stream; otherwise as mapUnreachable.
 */
export function mapReadError(err: unknown, streamId: string): unknown {
  const typed = err instanceof Error ? convertToCommandError(err) : err;
  if (typed instanceof AccessDeniedError) return new StreamAccessDeniedError(streamId, { cause: err });
  return mapUnreachable(err);
}

/**
 * The port's position is the commit position. For events of one append EventStoreDB gives each
 * event its own log position with commit == prepare, so `{commit: p, prepare: p}` names exactly
 * that event. Reads from a position are inclusive, so callers skip positions <= `after`.
 */
export function fromPosition(after: bigint | undefined): ReadPosition {
  return after === undefined || after <= 0n ? START : { commit: after, prepare: after };
}

function isSystem(type: string, streamId: string): boolean {
  return type.startsWith('$') || streamId.startsWith('$');
}

/** Called for an event the service cannot read (written by another tool): it is skipped. */
export type ForeignEventHandler = (event: { id: string; streamId: string; type: string }, reason: string) => void;

/**
 * EventStoreDB's own metadata keys for the causal chain, shown by its UI and used by the
 * `$by_correlation_id` projection. Written beside the service's snake_case keys, left out on read,
 * so both adapters give callers the same metadata.
 */
const CORRELATION_ID = '$correlationId';
const CAUSATION_ID = '$causationId';

export function toEsdbMetadata(metadata: StoredMetadata): Record<string, unknown> {
  const out: Record<string, unknown> = copy(metadata);
  if (typeof metadata.correlation_id === 'string') out[CORRELATION_ID] = metadata.correlation_id;
  if (typeof metadata.causation_id === 'string') out[CAUSATION_ID] = metadata.causation_id;
  return out;
}

function fromEsdbMetadata(metadata: unknown): StoredMetadata {
  if (!isPlainObject(metadata)) return {};
  if (!(CORRELATION_ID in metadata) && !(CAUSATION_ID in metadata)) return metadata;
  const { [CORRELATION_ID]: _correlation, [CAUSATION_ID]: _causation, ...rest } = metadata;
  return rest;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && !Array.isArray(value);
}

/** Whether an event is one of the service's: not a system event, JSON whose data is an object. */
export function isServiceEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): boolean {
  const e = resolved.event;
  return !!e && !isSystem(e.type, e.streamId) && e.isJson && isPlainObject(e.data);
}

/**
 * A stored event in the port's shape; undefined for system events, unresolved links, and events
 * the service cannot read (not JSON, or JSON that is not an object: another tool wrote them into
 * the same database), which are reported to `onForeign` and skipped.
 */
export function toRecordedEvent(
  resolved: ResolvedEvent | AllStreamResolvedEvent,
  onForeign?: ForeignEventHandler,
): RecordedEvent | undefined {
  const e = resolved.event;
  if (!e || isSystem(e.type, e.streamId)) return undefined;
  if (!e.isJson || !isPlainObject(e.data)) {
    // The client hands malformed JSON over as the raw text.
    onForeign?.(
      { id: e.id, streamId: e.streamId, type: e.type },
      e.isJson ? 'its JSON data is not an object' : 'its data is not JSON',
    );
    return undefined;
  }
  return {
    id: e.id,
    streamId: e.streamId,
    type: e.type,
    revision: Number(e.revision),
    // Stream reads carry a position only on servers from 22.6 on.
    position: e.position?.commit ?? resolved.commitPosition ?? -1n,
    data: e.data,
    metadata: fromEsdbMetadata(e.metadata),
    recordedAt: e.created,
  };
}

export function matchesFilter(e: RecordedEvent, filter: EventFilter | undefined): boolean {
  return matchesStreamFilter(e.streamId, e.type, filter);
}

/**
 * The server-side filter for subscriptions: EventStoreDB takes one filter, so stream prefixes win
 * and event types (when both are given) and a partition are checked again on the client with matchesFilter.
 * Without a filter, system events are excluded on the server.
 */
export function serverFilter(filter: EventFilter | undefined): Filter {
  const prefixes = filter?.streamPrefixes ?? [];
  const types = filter?.eventTypes ?? [];
  if (prefixes.length > 0) return streamNameFilter({ prefixes });
  if (types.length > 0) return eventTypeFilter({ regex: `^(?:${types.map(escapeRegex).join('|')})$` });
  return excludeSystemEvents();
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

import {
  ANY,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  WrongExpectedVersionError,
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
  WrongExpectedRevisionError,
  matchesFilter as matchesStreamFilter,
  type EventFilter,
  type ExpectedRevision,
  type RecordedEvent,
} from '../../ports/event-store.js';

export function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

/** WrongExpectedVersionError -> the port's error (with the actual revision); anything else unchanged. */
export function mapAppendError(err: unknown, streamId: string, expected: ExpectedRevision): unknown {
  if (!(err instanceof WrongExpectedVersionError)) return err;
  const actual = typeof err.actualVersion === 'bigint' ? Number(err.actualVersion) : 'no_stream';
  return new WrongExpectedRevisionError(streamId, expected, actual);
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

/** A stored event in the port's shape; undefined for system events and unresolved links. */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const e = resolved.event;
  if (!e || isSystem(e.type, e.streamId)) return undefined;
  if (!e.isJson) throw new TypeError(`Event ${e.id} in ${e.streamId} is not JSON; this service writes only JSON`);
  const metadata = e.metadata;
  return {
    id: e.id,
    streamId: e.streamId,
    type: e.type,
    revision: Number(e.revision),
    // Stream reads carry a position only on servers from 22.6 on.
    position: e.position?.commit ?? resolved.commitPosition ?? -1n,
    data: e.data as Record<string, unknown>,
    metadata: metadata && typeof metadata === 'object' && !(metadata instanceof Uint8Array) && !Array.isArray(metadata)
      ? (metadata as Record<string, unknown>)
      : {},
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

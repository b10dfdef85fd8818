import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type ExpectedRevision, type NewEvent } from '../ports/event-store.js';

/** Checks both event store adapters make before writing, so they refuse the same input with the same errors. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function checkExpected(streamId: string, expected: ExpectedRevision, current: number): void {
  const exists = current >= 0;
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && !exists) ||
    (expected === 'stream_exists' && exists) ||
    expected === current;
  if (!ok) throw new WrongExpectedRevisionError(streamId, expected, exists ? current : 'no_stream');
}

export function assertStreamId(streamId: string): void {
  if (typeof streamId !== 'string' || streamId === '' || streamId.startsWith('$')) {
    throw new TypeError(`Invalid stream id "${streamId}": non-empty, not starting with "$"`);
  }
}

export function prepareEvent(e: NewEvent): Required<NewEvent> {
  const id = e.id ?? randomUUID();
  if (!UUID.test(id)) throw new TypeError(`Event id must be a UUID, got "${id}"`);
  if (!e.type) throw new TypeError('Event type must be a non-empty string');
  return { id, type: e.type, data: e.data, metadata: e.metadata };
}

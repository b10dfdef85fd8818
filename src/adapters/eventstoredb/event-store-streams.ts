import { BACKWARDS, END, StreamNotFoundError, type EventStoreDBClient } from '@eventstore/db-client';
import type { StreamInfo } from '../../ports/event-store.js';

/**
 * Stream browser on EventStoreDB: `$streams` (written by the $streams system projection) holds
 * one link per stream, whose data is "0@<stream name>". Names are sorted, then the last revision
 * of each listed stream is read. Without system projections there is no `$streams` stream.
 */
export async function listStreamsFromSystemProjection(
  client: EventStoreDBClient,
  options: { prefix?: string; limit?: number },
): Promise<StreamInfo[]> {
  const prefix = options.prefix ?? '';
  const names: string[] = [];
  try {
    for await (const resolved of client.readStream('$streams')) {
      const link = resolved.event;
      if (!link) continue;
      const text = Buffer.from(link.data instanceof Uint8Array ? link.data : JSON.stringify(link.data)).toString('utf8');
      const name = text.slice(text.indexOf('@') + 1);
      if (!name.startsWith('$') && name.startsWith(prefix)) names.push(name);
    }
  } catch (err) {
    if (err instanceof StreamNotFoundError) {
      throw new Error(
        'Listing streams needs the $streams system projection (run EventStoreDB with system projections ' +
          'enabled), or browse streams in the EventStoreDB UI (port 2113).',
      );
    }
    throw err;
  }
  names.sort();
  const listed = options.limit === undefined ? names : names.slice(0, options.limit);
  const out: StreamInfo[] = [];
  for (const streamId of listed) {
    const lastRevision = await lastRevisionOf(client, streamId);
    if (lastRevision !== undefined) out.push({ streamId, lastRevision });
  }
  return out;
}

async function lastRevisionOf(client: EventStoreDBClient, streamId: string): Promise<number | undefined> {
  try {
    for await (const resolved of client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
      if (resolved.event) return Number(resolved.event.revision);
    }
  } catch (err) {
    if (!(err instanceof StreamNotFoundError)) throw err;
  }
  return undefined;
}

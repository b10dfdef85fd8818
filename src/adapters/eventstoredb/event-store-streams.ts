import { BACKWARDS, END, StreamNotFoundError, type EventStoreDBClient } from '@eventstore/db-client';
import type { ListStreamsOptions, StreamInfo } from '../../ports/event-store.js';
import { mapReadError } from './event-store-mapping.js';
import { consume } from './reads.js';

const PAGE = 500;
const REVISION_READS_AT_ONCE = 16;

/**
 * Stream browser on EventStoreDB: `$streams` (written by the $streams system projection) holds
 * one link per stream, in creation order, whose data is "0@<stream name>". Listing by name needs
 * every name, so `$streams` is read page by page keeping only the first `limit` names after
 * `after`; then the last revision of just those streams is read. A stream with no event left (an
 * operator deleted it) is left out, and the names after the last one taken fill its place, so a
 * page is short only at the end. Names compare as JavaScript strings, for the order and for
 * `after` alike. Without system projections there is no `$streams`; a user without the rights to
 * read it (or one of the listed streams) gets StreamAccessDeniedError.
 */
export async function listStreamsFromSystemProjection(
  client: EventStoreDBClient,
  options: ListStreamsOptions,
): Promise<StreamInfo[]> {
  const prefix = options.prefix ?? '';
  const limit = options.limit ?? Infinity;
  const out: StreamInfo[] = [];
  let after = options.after;
  for (;;) {
    const { names, more } = await namesAfter(client, prefix, after, limit - out.length);
    // A few reads at a time: each holds one of the connection's concurrent streams.
    for (let i = 0; i < names.length; i += REVISION_READS_AT_ONCE) {
      const chunk = names.slice(i, i + REVISION_READS_AT_ONCE);
      const revisions = await Promise.all(chunk.map((streamId) => lastRevisionOf(client, streamId)));
      chunk.forEach((streamId, j) => {
        const lastRevision = revisions[j];
        if (lastRevision !== undefined) out.push({ streamId, lastRevision });
      });
    }
    if (!more || out.length >= limit) return out;
    after = names.at(-1);
  }
}

/** The first `wanted` names after `after` with the prefix, in order; `more` when others follow them. */
async function namesAfter(
  client: EventStoreDBClient,
  prefix: string,
  after: string | undefined,
  wanted: number,
): Promise<{ names: string[]; more: boolean }> {
  let names: string[] = [];
  let more = false;
  try {
    for (let from = 0n; ; from += BigInt(PAGE)) {
      let count = 0;
      for await (const resolved of consume(client.readStream('$streams', { fromRevision: from, maxCount: PAGE }))) {
        count++;
        const link = resolved.event;
        if (!link) continue;
        const text = Buffer.from(link.data instanceof Uint8Array ? link.data : JSON.stringify(link.data)).toString(
          'utf8',
        );
        const name = text.slice(text.indexOf('@') + 1);
        if (!name.startsWith('$') && name.startsWith(prefix) && (after === undefined || name > after)) names.push(name);
      }
      // Keep the first `wanted` names so far: memory stays bounded by the page and the limit.
      if (names.length > wanted) {
        names = names.sort().slice(0, wanted);
        more = true;
      }
      if (count < PAGE) break;
    }
  } catch (err) {
    if (err instanceof StreamNotFoundError) {
      throw new Error(
        'Listing streams needs the $streams system projection (run EventStoreDB with system projections ' +
          'enabled), or browse streams in the EventStoreDB UI (port 2113).',
      );
    }
    throw mapReadError(err, '$streams');
  }
  return { names: names.sort(), more };
}

async function lastRevisionOf(client: EventStoreDBClient, streamId: string): Promise<number | undefined> {
  let revision: number | undefined;
  try {
    for await (const resolved of consume(
      client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }),
    )) {
      if (resolved.event) revision = Number(resolved.event.revision);
    }
  } catch (err) {
    if (!(err instanceof StreamNotFoundError)) throw mapReadError(err, streamId);
  }
  return revision;
}

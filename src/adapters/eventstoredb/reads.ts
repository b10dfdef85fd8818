import type { StreamingRead } from '@eventstore/db-client';

/**
 * Iterates a client read and, when the caller stops before its end (break, return, throw),
 * cancels the gRPC call. Leaving `for await` over the client's stream destroys only its Transform:
 * the call itself stays open (the client reads with no deadline) and holds one of the server's
 * concurrent streams on the connection until the connection closes; enough of them and every
 * later call on the connection, appends included, waits for a stream that never frees.
 */
export async function* consume<E>(read: StreamingRead<E>): AsyncGenerator<E> {
  let ended = false;
  try {
    for await (const item of read) yield item;
    ended = true;
  } finally {
    if (!ended) await read.cancel().catch(() => undefined); // a call that failed to start has nothing to cancel
  }
}

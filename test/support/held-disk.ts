import { vi } from 'vitest';
import type { EventStore } from '../../src/ports/event-store.js';
import { waitFor } from './wait.js';
import { deferred } from './deferred.js';

/**
 * Sends a request while `events.whenDurable()` is held, as if the sync covering what the request
 * reads were still running; fails unless the request waits for it and answers only once released.
 * The bound on reaching the wait only catches a hang, within vitest's 20 s per test.
 */
export async function answeredOnceDurable<T>(events: EventStore, send: () => PromiseLike<T>): Promise<T> {
  const { promise: disk, resolve: release } = deferred();
  const durable = vi.spyOn(events, 'whenDurable').mockImplementation(() => disk);
  try {
    let answered = false;
    const answer = Promise.resolve(send()).then((res) => {
      answered = true;
      return res;
    });
    await waitFor(() => durable.mock.calls.length > 0, { what: 'the answer to wait for the disk', timeoutMs: 15_000 });
    if (answered) throw new Error('answered before the disk');
    release();
    return await answer;
  } finally {
    release();
    durable.mockRestore();
  }
}

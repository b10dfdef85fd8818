import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * How long a long-running loop keeps the thread before it lets the event loop turn. Work over the
 * embedded stores never waits for I/O (SQLite calls are synchronous, so every `await` of theirs is
 * already settled): a loop of them, such as replaying the log into the read models at start, would
 * otherwise hold the thread until it ends, and no request, timer or signal would be served meanwhile.
 * Each turn of the loop accepts one new connection (Node 20), so the slice also bounds how many
 * connections a busy process accepts per second.
 */
export const TIME_SLICE_MS = 10;

let sliceStart = performance.now();

/** True once this thread has run for a slice since its last turn of the event loop: call `nextSlice()`. */
export function sliceUsedUp(): boolean {
  return performance.now() - sliceStart >= TIME_SLICE_MS;
}

/** Lets the event loop turn once (I/O, timers, immediates), then starts a new slice. */
export async function nextSlice(): Promise<void> {
  await nextTurn();
  sliceStart = performance.now();
}

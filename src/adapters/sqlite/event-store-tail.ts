import type { SubscribeToAllOptions, Subscription } from '../../ports/event-store.js';
import type { PageReader } from './event-store-reader.js';
import type { Wakeup } from './event-store-wakeup.js';
import { nextSlice, sliceUsedUp } from '../../shared/time-slice.js';

export const TAIL_PAGE_SIZE = 256;

/**
 * A catch-up-then-live subscription over the embedded log: read pages after the last position,
 * deliver one event at a time, and when the head is reached sleep until this process appends or
 * the poll interval passes (appends by other processes on the same file).
 */
export function tailSubscription(
  reader: PageReader,
  wakeup: Wakeup,
  pollMs: number,
  options: SubscribeToAllOptions,
): Subscription {
  let stopped = false;

  const run = async (): Promise<void> => {
    await Promise.resolve(); // the caller gets its Subscription before the first delivery
    let after = options.after ?? 0n;
    let caughtUp = false;
    while (!stopped) {
      const seen = wakeup.current;
      const page = reader.page(after, TAIL_PAGE_SIZE, options.filter);
      for (const event of page.events) {
        if (stopped) return;
        await options.onEvent(event);
        after = event.position;
        // Far behind the head (a replica restarted while another writes, a rebuild), reads and
        // handlers may all settle at once: let the event loop turn now and then.
        if (sliceUsedUp()) await nextSlice();
      }
      after = page.scannedTo;
      if (!page.reachedHead) continue;
      if (!caughtUp) {
        caughtUp = true;
        options.onCaughtUp?.();
      }
      if (!stopped) await wakeup.wait(pollMs, seen);
    }
  };

  const done = run().catch((err: unknown) => {
    stopped = true;
    if (options.onError) options.onError(err);
    else console.error('event store subscription stopped:', err);
  });

  return {
    async stop() {
      stopped = true;
      wakeup.interrupt();
      await done;
    },
  };
}

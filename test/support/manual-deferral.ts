import type { Deferral } from '../../src/adapters/sqlite/event-store-group-commit.js';

/** A Deferral whose callbacks run when the test says (`due()`): each scheduled one, once. */
export function manualDeferral(delayMs: number): {
  deferral: Deferral;
  /** Callbacks scheduled and neither run nor cancelled. */
  readonly waiting: number;
  /** Every schedule() so far. */
  readonly asked: number;
  /** The delay each schedule() asked for, in order. */
  readonly delays: readonly number[];
  due(): void;
} {
  const waiting = new Set<() => void>();
  let asked = 0;
  const delays: number[] = [];
  return {
    deferral: {
      delayMs,
      schedule(run: () => void, ms: number) {
        asked++;
        delays.push(ms);
        const once = () => {
          waiting.delete(once);
          run();
        };
        waiting.add(once);
        return () => waiting.delete(once);
      },
    },
    get waiting() {
      return waiting.size;
    },
    get asked() {
      return asked;
    },
    delays,
    due() {
      for (const run of [...waiting]) run();
    },
  };
}

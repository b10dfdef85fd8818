import type { Deferral } from '../../src/adapters/sqlite/event-store-group-commit.js';

/** A Deferral whose callbacks run when the test says (`due()`): each scheduled one, once. */
export function manualDeferral(delayMs: number): {
  deferral: Deferral;
  /** Callbacks scheduled and neither run nor cancelled. */
  readonly waiting: number;
  /** Every schedule() so far. */
  readonly asked: number;
  due(): void;
} {
  const waiting = new Set<() => void>();
  let asked = 0;
  return {
    deferral: {
      delayMs,
      schedule(run: () => void) {
        asked++;
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
    due() {
      for (const run of [...waiting]) run();
    },
  };
}

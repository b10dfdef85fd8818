import { scheduleTimer, type Deferral } from './event-store-group-commit.js';

/**
 * How long after an append the consumer groups (auto-accept, the webhook dispatcher) wake for it.
 * At 500 orders/s they then read a page of a few orders' events per wake instead of one per
 * commit, and auto-accept's acceptances share commits: about 5% less CPU per order (A/B,
 * interleaved; performance.md). Subscriptions (the read models) still wake on the next turn: a
 * partner's read right after its write waits for them. 10 ms saved no more CPU and made the
 * projection row's p99 (commit to visible in the orders list, 500 orders/s) about 5 ms longer.
 */
export const CONSUMER_WAKE_DELAY_MS = 5;

/**
 * Wakes tailing loops (subscriptions, consumer groups) soon after this process appends, and
 * otherwise lets them sleep for a poll interval so appends by other processes are seen too.
 * The version counter closes the gap between "read a page" and "start waiting": a wait that
 * starts after an append the loop has not read yet returns at once.
 *
 * The loops wake on the next turn of the event loop, not in the commit's own microtasks: the
 * writers' callers go first. A request that placed an order answers before the projections and
 * consumers its commit wakes do their work, and a command keeps the order it folded (the order
 * repository's cache) before auto-accept loads it, which then reads only the stream's tail.
 * Delayed waits (consumer groups) wake at most `delay` after an append (one timer serves them all).
 */
export class Wakeup {
  private version = 0;
  private readonly prompt = new Set<() => void>();
  private readonly delayed = new Set<() => void>();
  private promptWaking = false;
  private cancelDelayed: (() => void) | undefined;

  constructor(private readonly delay: Deferral = { delayMs: CONSUMER_WAKE_DELAY_MS, schedule: scheduleTimer }) {}

  get current(): number {
    return this.version;
  }

  /** This process has appended. */
  notify(): void {
    this.version++;
    if (!this.promptWaking && this.prompt.size > 0) {
      this.promptWaking = true;
      setImmediate(() => {
        this.promptWaking = false;
        wakeAll(this.prompt);
      });
    }
    if (!this.cancelDelayed && this.delayed.size > 0) {
      this.cancelDelayed = this.delay.schedule(() => {
        this.cancelDelayed = undefined;
        wakeAll(this.delayed);
      }, this.delay.delayMs);
    }
  }

  /** Wakes every waiter on the next turn, delayed ones too: a loop is stopping (the others wait again). */
  interrupt(): void {
    this.version++;
    this.cancelDelayed?.();
    this.cancelDelayed = undefined;
    setImmediate(() => {
      wakeAll(this.prompt);
      wakeAll(this.delayed);
    });
  }

  /**
   * Resolves on the next append (`delayed`: at most the delay after it), after `ms`, on an
   * interrupt, or at once if either happened since `seen`.
   */
  wait(ms: number, seen: number, delayed = false): Promise<void> {
    if (seen !== this.version) return Promise.resolve();
    const waiters = delayed ? this.delayed : this.prompt;
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiters.add(wake);
    });
  }
}

function wakeAll(waiters: Set<() => void>): void {
  const woken = [...waiters];
  waiters.clear();
  for (const wake of woken) wake();
}

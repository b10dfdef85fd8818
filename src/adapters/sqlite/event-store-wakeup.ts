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
 */
export class Wakeup {
  private version = 0;
  private readonly waiters = new Set<() => void>();
  private waking = false;

  get current(): number {
    return this.version;
  }

  notify(): void {
    this.version++;
    if (this.waking || this.waiters.size === 0) return;
    this.waking = true;
    setImmediate(() => {
      this.waking = false;
      const waiters = [...this.waiters];
      this.waiters.clear();
      for (const wake of waiters) wake();
    });
  }

  /** Resolves on the next notify, after `ms`, or at once if a notify happened since `seen`. */
  wait(ms: number, seen: number): Promise<void> {
    if (seen !== this.version) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
  }
}

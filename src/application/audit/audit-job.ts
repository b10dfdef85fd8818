import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { AuditReport } from './verify.js';

/** Where this process's audit is: none yet, running, or the last one's outcome. */
export type AuditJobState =
  | { state: 'idle' }
  | { state: 'running'; startedAt: string; by: string }
  | { state: 'done'; startedAt: string; finishedAt: string; by: string; report: AuditReport }
  | { state: 'failed'; startedAt: string; finishedAt: string; by: string; error: string }
  | { state: 'cancelled'; startedAt: string; finishedAt: string; by: string };

/**
 * `audit verify` for the console, as a background job: at most one runs at a time in a process
 * (a start while one runs is refused, and the caller says so), the request that starts it returns
 * at once, and the page polls `state` until the outcome is there. The outcome stays until the next
 * start. `gate`, awaited before the run, lets a test hold a job in `running` deterministically.
 * `cancel` (service shutdown) stops a running audit: its outcome is `cancelled`, not a failure.
 */
export class AuditJob {
  private current: AuditJobState = { state: 'idle' };
  private running: Promise<void> | undefined;
  private cancelling: (() => void) | undefined;
  private cancelled = false;

  constructor(
    private readonly deps: {
      run: () => Promise<AuditReport>;
      /** Stops the run in progress (its promise then rejects); resolves once it is stopped. */
      cancel?: () => Promise<void>;
      gate?: () => Promise<void>;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  get state(): AuditJobState {
    return this.current;
  }

  /** Starts an audit; false (nothing started) while one is running. `by`: who started it, for the log. */
  start(by: string): boolean {
    if (this.current.state === 'running') return false;
    const startedAt = this.deps.clock.now().toISOString();
    this.current = { state: 'running', startedAt, by };
    this.cancelled = false;
    const cancelledWhileGated = new Promise<'cancelled'>((resolve) => (this.cancelling = () => resolve('cancelled')));
    const log = this.deps.logger.child({ component: 'console', console_session: by });
    log.info({ action: 'audit verify', started_at: startedAt }, 'console audit started');
    this.running = (async () => {
      try {
        if (this.deps.gate && (await Promise.race([this.deps.gate(), cancelledWhileGated])) === 'cancelled') return;
        if (this.cancelled) return;
        const report = await this.deps.run();
        this.current = { state: 'done', startedAt, finishedAt: this.deps.clock.now().toISOString(), by, report };
        log.info(
          {
            action: 'audit verify',
            outcome: 'done',
            differences: report.differenceCount,
            head: report.head.toString(),
          },
          'console audit finished',
        );
      } catch (err) {
        if (this.cancelled) return;
        const error = err instanceof Error ? err.message : String(err);
        this.current = { state: 'failed', startedAt, finishedAt: this.deps.clock.now().toISOString(), by, error };
        log.error({ err, action: 'audit verify', outcome: 'failed' }, 'console audit failed');
      }
    })().finally(() => {
      if (this.cancelled) {
        this.current = { state: 'cancelled', startedAt, finishedAt: this.deps.clock.now().toISOString(), by };
        log.info({ action: 'audit verify', outcome: 'cancelled' }, 'console audit cancelled');
      }
      this.cancelling = undefined;
    });
    return true;
  }

  /** Stops the running audit, if any, and resolves once it has ended (its outcome: cancelled). */
  async cancel(): Promise<void> {
    if (this.current.state !== 'running') return;
    this.cancelled = true;
    this.cancelling?.();
    await this.deps.cancel?.();
    await this.running;
  }

  /** Resolves once the running audit (if any) has ended; for shutdown and tests. */
  async settled(): Promise<void> {
    await this.running;
  }
}

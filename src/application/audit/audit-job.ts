import type { EventStore, RecordedEvent } from '../../ports/event-store.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import { eventMetadata } from '../event-metadata.js';
import { holderMayBeAlive } from '../lease.js';
import type { AuditReport } from './verify.js';

/**
 * The console's audits, for every replica to show: `AuditStarted` and `AuditFinished`, each naming
 * the replica that ran it. The stream keeps its newest events only.
 */
export const AUDIT_STREAM = 'console-audits';
const KEPT_EVENTS = 20;

interface Run {
  startedAt: string;
  /** The operator session's log id. */
  by: string;
  /** The replica that runs it, whose read models it compares. */
  replica: string;
}

/** The newest console audit of the deployment: none yet, running, or its outcome. */
export type AuditJobState =
  | { state: 'idle' }
  | ({ state: 'running' } & Run)
  | ({ state: 'done'; finishedAt: string; report: AuditReport } & Run)
  | ({ state: 'failed'; finishedAt: string; error: string } & Run)
  | ({ state: 'cancelled'; finishedAt: string } & Run);

/** What `AuditFinished` stores of a report: `head` as text (JSON has no bigint). */
type StoredReport = Omit<AuditReport, 'head' | 'readModels'> & {
  head: string;
  readModels: Array<Omit<AuditReport['readModels'][number], 'servedPosition'> & { servedPosition: string | null }>;
};

/**
 * Differences an `AuditFinished` keeps, in JSON bytes: EventStoreDB refuses an append over 1 MB by
 * default. The count still covers them all, and the page says it shows the first ones.
 */
const STORED_DIFFERENCES_BYTES = 512 * 1024;

function firstDifferences(differences: AuditReport['differences']): AuditReport['differences'] {
  let bytes = 0;
  const kept: AuditReport['differences'] = [];
  for (const d of differences) {
    bytes += Buffer.byteLength(JSON.stringify(d));
    if (bytes > STORED_DIFFERENCES_BYTES) break;
    kept.push(d);
  }
  return kept;
}

const storedReport = (r: AuditReport): StoredReport => ({
  ...r,
  differences: firstDifferences(r.differences),
  head: r.head.toString(),
  readModels: r.readModels.map((m) => ({
    ...m,
    servedPosition: m.servedPosition === null ? null : m.servedPosition.toString(),
  })),
});

const reportOf = (r: StoredReport): AuditReport => ({
  ...r,
  head: BigInt(r.head),
  readModels: r.readModels.map((m) => ({
    ...m,
    servedPosition: m.servedPosition === null ? null : BigInt(m.servedPosition),
  })),
});

/**
 * `audit verify` for the console, as a background job: at most one runs at a time in a replica (a
 * start while one runs there is refused, and the caller says so), the request that starts it
 * returns at once, and the page polls `state()` until the outcome is there. Start and outcome are
 * appended to AUDIT_STREAM, so whichever replica answers shows the newest audit of the deployment
 * and which replica ran it. `gate`, awaited before the run, lets a test hold a job in `running`
 * deterministically. `cancel` (service shutdown) stops a running audit: its outcome is
 * `cancelled`, not a failure.
 */
export class AuditJob {
  /** This replica's newest audit; `state()` prefers the stream's unless this one is newer. */
  private current: AuditJobState = { state: 'idle' };
  private running: Promise<void> | undefined;
  private cancelling: (() => void) | undefined;
  private cancelled = false;
  private bounded = false;

  constructor(
    private readonly deps: {
      run: () => Promise<AuditReport>;
      /** Stops the run in progress (its promise then rejects); resolves once it is stopped. */
      cancel?: () => Promise<void>;
      gate?: () => Promise<void>;
      events: EventStore;
      /** This replica's id (`<host>/<pid>/<random>`). */
      replica: string;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /**
   * The newest audit of any replica. One that a replica of this host was running when its process
   * ended (it certainly no longer runs) is shown failed; one of another host stays `running` in
   * the eyes of the others until the next audit, since nothing says whether it still runs.
   */
  async state(): Promise<AuditJobState> {
    if (this.current.state === 'running') return this.current;
    const [last] = await this.deps.events.readStream(AUDIT_STREAM, { backwards: true, maxCount: 1 });
    if (!last) return this.current;
    const recorded = stateOf(last);
    // This replica's outcome when writing it failed: the stream still ends at its start.
    if (
      this.current.state !== 'idle' &&
      recorded.state === 'running' &&
      recorded.replica === this.deps.replica &&
      recorded.startedAt === this.current.startedAt
    )
      return this.current;
    if (recorded.state === 'running' && !holderMayBeAlive(recorded.replica, this.deps.replica))
      return {
        ...recorded,
        state: 'failed',
        finishedAt: recorded.startedAt,
        error: 'the replica running it stopped before it finished',
      };
    return recorded;
  }

  /** Starts an audit; false (nothing started) while one is running here. `by`: who started it, for the log. */
  start(by: string): boolean {
    if (this.current.state === 'running') return false;
    const run: Run = { startedAt: this.deps.clock.now().toISOString(), by, replica: this.deps.replica };
    this.current = { state: 'running', ...run };
    this.cancelled = false;
    const cancelledWhileGated = new Promise<'cancelled'>((resolve) => (this.cancelling = () => resolve('cancelled')));
    const log = this.deps.logger.child({ component: 'console', console_session: by });
    log.info({ action: 'audit verify', started_at: run.startedAt }, 'console audit started');
    const finish = async (outcome: Exclude<AuditJobState, { state: 'idle' | 'running' }>) => {
      this.current = outcome;
      await this.record('AuditFinished', {
        outcome: outcome.state,
        ...runData(outcome),
        finished_at: outcome.finishedAt,
        ...(outcome.state === 'done' ? { report: storedReport(outcome.report) } : {}),
        ...(outcome.state === 'failed' ? { error: outcome.error } : {}),
      });
    };
    this.running = (async () => {
      await this.record('AuditStarted', runData(run));
      try {
        if (this.deps.gate && (await Promise.race([this.deps.gate(), cancelledWhileGated])) === 'cancelled') return;
        if (this.cancelled) return;
        const report = await this.deps.run();
        log.info(
          {
            action: 'audit verify',
            outcome: 'done',
            differences: report.differenceCount,
            head: report.head.toString(),
          },
          'console audit finished',
        );
        await finish({ state: 'done', ...run, finishedAt: this.now(), report });
      } catch (err) {
        if (this.cancelled) return;
        const error = err instanceof Error ? err.message : String(err);
        log.error({ err, action: 'audit verify', outcome: 'failed' }, 'console audit failed');
        await finish({ state: 'failed', ...run, finishedAt: this.now(), error });
      }
    })()
      .then(async () => {
        if (!this.cancelled) return;
        log.info({ action: 'audit verify', outcome: 'cancelled' }, 'console audit cancelled');
        await finish({ state: 'cancelled', ...run, finishedAt: this.now() });
      })
      .finally(() => (this.cancelling = undefined));
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

  /** Resolves once the running audit (if any) has ended and its outcome is recorded; for shutdown and tests. */
  async settled(): Promise<void> {
    await this.running;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  /** Appends to AUDIT_STREAM; a failure is logged, and this replica still shows its own audit. */
  private async record(type: 'AuditStarted' | 'AuditFinished', data: Record<string, unknown>): Promise<void> {
    const at = (data.finished_at ?? data.started_at) as string;
    try {
      await this.deps.events.append(AUDIT_STREAM, [{ type, data, metadata: eventMetadata({ actor: 'support', at }) }], {
        expectedRevision: 'any',
      });
      if (!this.bounded) {
        await this.deps.events.setStreamMaxCount(AUDIT_STREAM, KEPT_EVENTS);
        this.bounded = true;
      }
    } catch (err) {
      this.deps.logger.error({ err, stream: AUDIT_STREAM, type }, 'could not record the console audit');
    }
  }
}

const runData = (run: Run) => ({ started_at: run.startedAt, by: run.by, replica: run.replica });

function stateOf(e: RecordedEvent): AuditJobState {
  const d = e.data as {
    outcome?: 'done' | 'failed' | 'cancelled';
    started_at: string;
    finished_at?: string;
    by: string;
    replica: string;
    report?: StoredReport;
    error?: string;
  };
  const run: Run = { startedAt: d.started_at, by: d.by, replica: d.replica };
  if (e.type === 'AuditStarted') return { state: 'running', ...run };
  const finishedAt = d.finished_at ?? d.started_at;
  if (d.outcome === 'done' && d.report) return { state: 'done', ...run, finishedAt, report: reportOf(d.report) };
  if (d.outcome === 'cancelled') return { state: 'cancelled', ...run, finishedAt };
  return { state: 'failed', ...run, finishedAt, error: d.error ?? 'no reason was recorded' };
}

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

type Finished = Exclude<AuditJobState, { state: 'idle' | 'running' }>;

/** One audit from its start until its outcome is recorded. */
interface ActiveRun {
  run: Run;
  cancelled: boolean;
  /** Ends the wait on the gate (a run held there is cancelled). */
  releaseGate: () => void;
  /** Settles once the outcome is recorded. */
  done: Promise<void>;
}

/**
 * `audit verify` for the console, as a background job: at most one runs at a time in a replica (a
 * start while one runs there, or while its outcome is being recorded, is refused, and the caller
 * says so). `start` resolves once `AuditStarted` is in AUDIT_STREAM, so the page it redirects to
 * shows the audit running on whichever replica answers; the run goes on in the background and the
 * page polls `state()` until its outcome is there. `gate`, awaited before the run, lets a test hold
 * a job in `running` deterministically. `cancel` (service shutdown) stops a running audit (its
 * outcome is `cancelled`, not a failure) and waits until the outcome is recorded.
 */
export class AuditJob {
  /** This replica's newest audit; `state()` shows it when the stream has nothing newer. */
  private current: AuditJobState = { state: 'idle' };
  private active: ActiveRun | undefined;
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
    const local = this.current;
    if (local.state === 'running') return local;
    const [last] = await this.deps.events.readStream(AUDIT_STREAM, { backwards: true, maxCount: 1 });
    const recorded = last ? stateOf(last) : undefined;
    // Nothing readable recorded, or this replica's own audit is newer (writing its outcome failed).
    if (!recorded || (local.state !== 'idle' && local.startedAt >= recorded.startedAt)) return local;
    if (recorded.state === 'running' && !holderMayBeAlive(recorded.replica, this.deps.replica))
      return {
        ...recorded,
        state: 'failed',
        finishedAt: recorded.startedAt,
        error: 'the replica running it stopped before it finished',
      };
    return recorded;
  }

  /**
   * Starts an audit and resolves once its start is recorded; false (nothing started) while one is
   * running here. `by`: who started it, for the log.
   */
  async start(by: string): Promise<boolean> {
    if (this.active) return false;
    const run: Run = { startedAt: this.now(), by, replica: this.deps.replica };
    let releaseGate!: () => void;
    const gateReleased = new Promise<'cancelled'>((resolve) => (releaseGate = () => resolve('cancelled')));
    const active: ActiveRun = { run, cancelled: false, releaseGate, done: Promise.resolve() };
    this.active = active;
    this.current = { state: 'running', ...run };
    const log = this.deps.logger.child({ component: 'console', console_session: by });
    log.info({ action: 'audit verify', started_at: run.startedAt }, 'console audit started');
    const started = this.record('AuditStarted', runData(run));
    active.done = started
      .then(() => this.execute(active, gateReleased, log))
      .finally(() => {
        if (this.active === active) this.active = undefined;
      });
    await started;
    return true;
  }

  /** Stops the running audit, if any, and resolves once its outcome is recorded. */
  async cancel(): Promise<void> {
    const active = this.active;
    if (!active) return;
    active.cancelled = true;
    active.releaseGate();
    await this.deps.cancel?.();
    await active.done;
  }

  /** Resolves once the audit in progress (if any) has ended and its outcome is recorded; for tests. */
  async settled(): Promise<void> {
    await this.active?.done;
  }

  /** Runs the audit and records its one outcome: a report that came back is `done`, even if a cancel came after. */
  private async execute(active: ActiveRun, gateReleased: Promise<'cancelled'>, log: Logger): Promise<void> {
    const { run } = active;
    let outcome: Finished;
    try {
      const gated = this.deps.gate ? await Promise.race([this.deps.gate(), gateReleased]) : undefined;
      if (gated === 'cancelled' || active.cancelled) throw new CancelledBeforeRun();
      const report = await this.deps.run();
      outcome = { state: 'done', ...run, finishedAt: this.now(), report };
      log.info(
        { action: 'audit verify', outcome: 'done', differences: report.differenceCount, head: report.head.toString() },
        'console audit finished',
      );
    } catch (err) {
      if (active.cancelled) {
        outcome = { state: 'cancelled', ...run, finishedAt: this.now() };
        log.info({ action: 'audit verify', outcome: 'cancelled' }, 'console audit cancelled');
      } else {
        outcome = {
          state: 'failed',
          ...run,
          finishedAt: this.now(),
          error: err instanceof Error ? err.message : String(err),
        };
        log.error({ err, action: 'audit verify', outcome: 'failed' }, 'console audit failed');
      }
    }
    this.current = outcome;
    await this.record('AuditFinished', {
      outcome: outcome.state,
      ...runData(outcome),
      finished_at: outcome.finishedAt,
      ...(outcome.state === 'done' ? { report: storedReport(outcome.report) } : {}),
      ...(outcome.state === 'failed' ? { error: outcome.error } : {}),
    });
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

class CancelledBeforeRun extends Error {}

/** What an audit event records; undefined for one that cannot be read (written by hand, say). */
function stateOf(e: RecordedEvent): Exclude<AuditJobState, { state: 'idle' }> | undefined {
  const d = e.data as {
    outcome?: unknown;
    started_at?: unknown;
    finished_at?: unknown;
    by?: unknown;
    replica?: unknown;
    report?: StoredReport;
    error?: unknown;
  };
  if (typeof d.started_at !== 'string' || typeof d.by !== 'string' || typeof d.replica !== 'string') return undefined;
  const run: Run = { startedAt: d.started_at, by: d.by, replica: d.replica };
  if (e.type === 'AuditStarted') return { state: 'running', ...run };
  if (e.type !== 'AuditFinished') return undefined;
  const finishedAt = typeof d.finished_at === 'string' ? d.finished_at : d.started_at;
  if (d.outcome === 'cancelled') return { state: 'cancelled', ...run, finishedAt };
  if (d.outcome === 'done') {
    try {
      return { state: 'done', ...run, finishedAt, report: reportOf(d.report!) };
    } catch {
      return undefined;
    }
  }
  return {
    state: 'failed',
    ...run,
    finishedAt,
    error: typeof d.error === 'string' ? d.error : 'no reason was recorded',
  };
}

import { LogPositionError, type EventStore, type RecordedEvent, type Subscription } from '../ports/event-store.js';
import type { ReadModelStore } from '../ports/read-model-store.js';
import type { Logger } from '../shared/logger.js';
import { nextSlice, sliceUsedUp } from '../shared/time-slice.js';
import { PROJECTIONS, type AnyProjection } from '../../projections/index.js';
import { MAX_RESTART_MS, ProjectionRunner, RESTART_MS } from '../../projections/runner.js';
import type { ProjectedEvent } from '../../projections/projection.js';
import { ApiError } from '../domain/errors.js';
import { CatchUpWorker } from './catch-up-worker.js';

/** How long a read waits for its read models to pass the log's head before answering anyway. */
export const READ_YOUR_WRITES_TIMEOUT_MS = 2000;
const CATCH_UP_PAGE = 1000;
/** Below this many events a worker thread costs more to start than it saves. */
const WORKER_CATCH_UP_FROM = 20_000;

/** Runs every projection of the service and answers "are the read models up to date?". */
export class ReadModels {
  readonly runners: Map<string, ProjectionRunner>;
  private catchingUp: Promise<void> = Promise.resolve();
  private stopping = false;
  private shared: Subscription | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Failures in a row of the shared subscription, with no event delivered between them. */
  private sharedFailures = 0;

  constructor(
    private readonly deps: { events: EventStore; store: ReadModelStore; logger?: Logger; workerCatchUpFrom?: number },
    projections: readonly AnyProjection[] = PROJECTIONS,
  ) {
    this.runners = new Map(projections.map((p) => [p.name, new ProjectionRunner(p, deps)]));
  }

  get store(): ReadModelStore {
    return this.deps.store;
  }

  /**
   * Returns at once; reads wait (bounded) for the read models as usual. The runners first catch up
   * together in one pass over the log, then follow it on one shared subscription: each event is
   * read and parsed once, and the order read models fold it back to back (sharing the fold); from an
   * empty embedded store, a worker thread projects part of the documents meanwhile. A runner that
   * fails drops out and follows the log on its own subscription from its checkpoint.
   */
  async start(): Promise<void> {
    this.stopping = false;
    const runners = [...this.runners.values()];
    for (const r of runners) await r.load();
    await this.checkCheckpoints(runners);
    this.catchingUp = this.catchUpTogether(runners)
      .catch((err: unknown) =>
        this.deps.logger?.error({ err }, 'shared catch-up failed; each projection catches up on its own'),
      )
      .then(() => this.follow(runners));
  }

  /**
   * Every stored checkpoint must be a place in this log: one past the head (a wiped or replaced
   * event store under surviving read models) would leave the read models waiting for positions
   * the log has already given to other events, and on EventStoreDB a read from a position that is
   * not an event's fails at every retry. Either way start-up stops with LogPositionError.
   */
  private async checkCheckpoints(runners: ProjectionRunner[]): Promise<void> {
    const checkpoints = [...new Set(runners.map((r) => r.position).filter((p) => p > 0n))];
    if (checkpoints.length === 0) return;
    const head = await this.deps.events.headPosition();
    for (const position of checkpoints) {
      if (position > head) throw new LogPositionError(position, head);
      await this.deps.events.readAll({ after: position, maxCount: 1 });
    }
  }

  /**
   * Resolves once the start's pass over the log has reached the head it saw: every runner caught
   * up, or dropped out after a failure to follow the log on its own. The server listens after it.
   */
  initialCatchUp(): Promise<void> {
    return this.catchingUp;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.catchingUp;
    clearTimeout(this.restartTimer);
    await this.shared?.stop();
    this.shared = undefined;
    for (const r of this.runners.values()) await r.stop();
  }

  /** One subscription from the lowest position of the runners it feeds (each skips what it has seen). */
  private follow(runners: ProjectionRunner[]): void {
    const fed = runners.filter((r) => !r.subscribed);
    if (this.stopping || fed.length === 0) return;
    const after = fed.reduce((min, r) => (r.position < min ? r.position : min), fed[0]!.position);
    this.shared = this.deps.events.subscribeToAll({
      after,
      onEvent: (e) => {
        this.sharedFailures = 0;
        return this.feedAll(fed, e);
      },
      onError: (err) => {
        // Backs off like a runner (projections/runner.ts), so a lasting fault logs twice a minute, not every second.
        this.sharedFailures++;
        const delay = Math.min(RESTART_MS * 2 ** (this.sharedFailures - 1), MAX_RESTART_MS);
        this.deps.logger?.error(
          { err, failures: this.sharedFailures, retry_in_ms: delay },
          'shared projection subscription stopped; restarting',
        );
        this.restartTimer = setTimeout(() => this.follow(fed), delay);
        this.restartTimer.unref();
      },
    });
  }

  // try/catch rather than a .catch() handler per runner and event: that closure and its promise
  // were the most allocated objects of a steady order load.
  private async feedAll(runners: ProjectionRunner[], e: RecordedEvent): Promise<void> {
    for (const r of runners) {
      if (r.subscribed) continue;
      try {
        await r.feed(e);
      } catch (err) {
        this.deps.logger?.error(
          { err, projection: r.projection.name },
          'projection failed; it follows the log on its own',
        );
        if (!this.stopping && !r.subscribed) await r.start(r.position);
      }
    }
  }

  /** Feeds every event up to the head to every runner that has not passed it. A runner that fails drops out and retries alone. */
  private async catchUpTogether(runners: ProjectionRunner[]): Promise<void> {
    const head = await this.deps.events.headPosition();
    const failed = new Set<ProjectionRunner>();
    let after = runners.reduce((min, r) => (r.position < min ? r.position : min), head);
    let worker = await this.startWorker(runners, after, head);
    // The worker splits the log by stream part; a read model whose documents take events of streams
    // in different parts is not split: it gets this thread's pages and what the worker forwards.
    const whole = new Set(worker ? runners.filter((r) => r.projection.documentsSpanStreams) : []);
    try {
      while (!this.stopping && after < head) {
        // With a worker, this thread reads only its part of the log.
        const page = await this.deps.events.readAll({ after, maxCount: CATCH_UP_PAGE, filter: worker?.share });
        if (this.stopping) return;
        const upToHead = page.filter((e) => e.position <= head);
        // A page shorter than asked read everything there was up to the head.
        const through = upToHead.length < CATCH_UP_PAGE ? head : upToHead.at(-1)!.position;
        // The worker's documents up to the end of this page are written first.
        let forwarded: ProjectedEvent[] = [];
        try {
          forwarded = (await worker?.importThrough(through, this.deps.store)) ?? [];
        } catch (err) {
          this.deps.logger?.warn({ err }, 'catch-up worker failed; the catch-up goes on without it');
          void worker?.close();
          worker = null;
          continue; // read this page again, whole: the runners skip what the worker already had written
        }
        const merged =
          forwarded.length > 0
            ? [...upToHead, ...forwarded].sort((a, b) => (a.position < b.position ? -1 : 1))
            : upToHead;
        for (const r of runners) {
          if (failed.has(r)) continue;
          await r.feedPage(whole.has(r) ? merged : upToHead, through).catch((err: unknown) => {
            failed.add(r);
            this.deps.logger?.error(
              { err, projection: r.projection.name },
              'projection failed during catch-up; it retries on its own',
            );
          });
        }
        after = through;
        // The embedded stores settle every await above at once: without this, nothing else would run
        // on this thread (requests, timers, signals) until the whole log is replayed.
        if (sliceUsedUp()) await nextSlice();
      }
    } finally {
      await worker?.close();
    }
  }

  /**
   * A worker thread for part of the documents (see catch-up-worker.ts), when it pays: embedded
   * stores, the service's own projections, a rebuild from an empty store (what the embedded service
   * does at every start) and a long log. Otherwise null: this thread does everything.
   */
  private async startWorker(runners: ProjectionRunner[], after: bigint, head: bigint): Promise<CatchUpWorker | null> {
    const { events, store } = this.deps;
    const file = events.localFile;
    if (
      file === undefined ||
      !store.importRows ||
      after !== 0n ||
      head < (this.deps.workerCatchUpFrom ?? WORKER_CATCH_UP_FROM)
    )
      return null;
    if (runners.some((r) => !PROJECTIONS.includes(r.projection))) return null;
    for (const r of runners) if ((await store.count(r.projection.collection)) > 0) return null;
    const names = (whole: boolean) =>
      runners.filter((r) => Boolean(r.projection.documentsSpanStreams) === whole).map((r) => r.projection.name);
    const prefixes = [...new Set(runners.flatMap((r) => r.projection.streamPrefixes))];
    return CatchUpWorker.start({
      file,
      head,
      pageSize: CATCH_UP_PAGE,
      projections: names(false),
      forward: names(true),
      prefixes,
    });
  }

  runner(name: string): ProjectionRunner {
    const r = this.runners.get(name);
    if (!r) throw new ApiError('not_found', `No projection named ${name}.`);
    return r;
  }

  /**
   * Read-your-writes: waits until the named read model has applied everything that was in the log
   * when the read began, so a partner always sees its own completed writes. Bounded; never a sleep.
   * False when it has not after `timeoutMs`, or once `signal` aborts.
   */
  async catchUp(name: string, timeoutMs = READ_YOUR_WRITES_TIMEOUT_MS, signal?: AbortSignal): Promise<boolean> {
    const head = await this.deps.events.readYourWritesPosition();
    return this.runner(name).waitFor(head, timeoutMs, signal);
  }

  /**
   * The projections that keep failing at one position (see ProjectionRunner.stuck), as one line
   * for /readyz; undefined when none is.
   */
  stuckReport(): string | undefined {
    const stuck = [...this.runners.values()].flatMap((r) => {
      const s = r.stuck;
      return s ? [`${r.projection.name} stuck after position ${s.position} (${s.failures} failures: ${s.error})`] : [];
    });
    return stuck.length > 0 ? stuck.join('; ') : undefined;
  }

  /**
   * Each projection's progress: `position` is what this process has applied, `checkpoint` what is
   * stored (saved in batches, so it may trail `position` briefly), `lag` is head - position.
   */
  async status(): Promise<ProjectionStatus[]> {
    const head = await this.deps.events.headPosition();
    return Promise.all(
      [...this.runners.values()].map(async (r) => ({
        name: r.projection.name,
        collection: r.projection.collection,
        position: r.position.toString(),
        checkpoint: (await this.deps.store.checkpoint(r.projection.name)).toString(),
        head: head.toString(),
        lag: (head > r.position ? head - r.position : 0n).toString(),
      })),
    );
  }
}

/** Positions as decimal strings: they are bigints (EventStoreDB commit positions exceed 2^53). */
export interface ProjectionStatus {
  name: string;
  collection: string;
  position: string;
  checkpoint: string;
  head: string;
  lag: string;
}

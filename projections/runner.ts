import type { EventStore, RecordedEvent, Subscription } from '../src/ports/event-store.js';
import type { ReadModelStore } from '../src/ports/read-model-store.js';
import type { Logger } from '../src/shared/logger.js';
import { nextSlice, sliceUsedUp } from '../src/shared/time-slice.js';
import { applyEvent, applyEvents, documentIds, eventsByDocument, reads, type ProjectedEvent } from './projection.js';
import type { AnyProjection } from './index.js';

/** Checkpoint writes are batched: every CHECKPOINT_EVERY events, or once the log goes quiet. */
const CHECKPOINT_EVERY = 500;
const CHECKPOINT_IDLE_MS = 200;
const MAX_CAS_ATTEMPTS = 20;
/** A restart after a failure waits 1 s, doubling while it keeps failing at one position, up to 30 s: the log stays readable. */
export const RESTART_MS = 1000;
export const MAX_RESTART_MS = 30_000;
/** Failures in a row at one position after which the runner reports itself stuck (a poison event, not a blip). */
export const STUCK_AFTER = 3;

/** A runner that keeps failing at one position: the last event it applied, how often, and why (short). */
export interface StuckProjection {
  position: bigint;
  failures: number;
  error: string;
}

/**
 * Keeps one read model up to date: subscribes to the whole log from the stored checkpoint, applies
 * the events the projection reads (compare-and-set, so several processes can run it against one
 * store), and records how far it got. Every event moves `position`, read or not, so a reader can
 * wait for "everything up to the log's head" (read-your-writes) without any fixed sleep.
 *
 * The checkpoint is saved in batches, after the documents: a restart may replay the events after
 * the last saved checkpoint, and each is a no-op because every document remembers the last revision
 * it absorbed per stream (see applyEvent).
 */
export class ProjectionRunner {
  private subscription: Subscription | undefined;
  private current = 0n;
  private saved = 0n;
  private sinceCheckpoint = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private waiters: Array<{ position: bigint; resolve: (ok: boolean) => void }> = [];
  private restartTimer: NodeJS.Timeout | undefined;
  /** Set as start() begins (also for a rebuild), before any await: from then on, no feeding. */
  private ownSubscription = false;
  /** Failures in a row at one position; cleared once the runner passes it. */
  private failure: StuckProjection | undefined;
  /** Moves at every start and stop: a start or a restart begun before a stop or a newer start gives up. */
  private run = 0;
  /** Set by stop(), cleared by start(): a rebuild whose turn comes after a stop (a shutdown) does nothing. */
  private stopped = false;
  /** Rebuilds run one after the other: one's reset never lands in another's replay. */
  private rebuilding: Promise<void> = Promise.resolve();
  /** What a shared catch-up is applying now: a halt waits for it, so no fed write lands after a reset. */
  private feeding: Promise<void> = Promise.resolve();

  constructor(
    readonly projection: AnyProjection,
    private readonly deps: { events: EventStore; store: ReadModelStore; logger?: Logger },
  ) {}

  get position(): bigint {
    return this.current;
  }

  /** Set once it has failed STUCK_AFTER times in a row at one position. */
  get stuck(): StuckProjection | undefined {
    return this.failure && this.failure.failures >= STUCK_AFTER ? { ...this.failure } : undefined;
  }

  /** True once it reads the log through its own subscription (not fed by a shared catch-up). */
  get subscribed(): boolean {
    return this.ownSubscription;
  }

  /** Takes the stored checkpoint as its position without subscribing: a shared catch-up feeds it. */
  async load(): Promise<void> {
    this.ownSubscription = false;
    this.stopped = false;
    this.saved = await this.deps.store.checkpoint(this.projection.name);
    this.current = this.saved;
    this.sinceCheckpoint = 0;
  }

  /** Applies an event someone else read from the log; ignored once subscribed or already passed. */
  async feed(e: RecordedEvent): Promise<void> {
    if (this.ownSubscription || e.position <= this.current) return;
    await this.fed(this.handle(e));
  }

  /**
   * Applies a page of events someone else read (a catch-up), with the same outcome as feeding them
   * one by one: each document is read and written once for all of its events in the page, and the
   * position moves past the page only after every document is written. `through`: the end of what
   * the caller read, when that is past the last event (a page of part of the log, whose other part
   * another thread projected and had written).
   */
  async feedPage(events: readonly ProjectedEvent[], through = events.at(-1)?.position): Promise<void> {
    if (this.ownSubscription || through === undefined || through <= this.current) return;
    await this.fed(this.applyPage(events, through));
  }

  /** Feeds come one at a time (the shared pass awaits each), so the latest is the one in flight. */
  private fed(applying: Promise<void>): Promise<void> {
    this.feeding = applying.catch(() => undefined);
    return applying;
  }

  private async applyPage(events: readonly ProjectedEvent[], through: bigint): Promise<void> {
    const fresh = events.filter((e) => e.position > this.current);
    for (const [id, list] of eventsByDocument(this.projection, fresh)) {
      await this.applyAll(id, list);
      if (sliceUsedUp()) {
        await nextSlice();
        // A rebuild may have begun meanwhile: it replays the log itself.
        if (this.ownSubscription) return;
      }
    }
    this.advance(through, fresh.length);
    if (this.sinceCheckpoint >= CHECKPOINT_EVERY) await this.flush();
  }

  /**
   * Subscribes from the stored checkpoint (or from `from`, e.g. 0n to replay everything). Never
   * fails: when the store cannot give its checkpoint (a store down), it retries as after a failed
   * subscription, and is reported stuck meanwhile; it is no longer fed either way.
   */
  async start(from?: bigint): Promise<void> {
    this.ownSubscription = true;
    this.stopped = false;
    const run = ++this.run;
    let saved: bigint;
    try {
      saved = await this.deps.store.checkpoint(this.projection.name);
    } catch (err) {
      if (run === this.run) this.restartAfter(err, from);
      return;
    }
    if (run !== this.run) return;
    // Another start subscribed while this one read its checkpoint (two rebuilds asked at once): stop
    // that subscription, or it would go on applying events unseen by stop().
    if (this.subscription) {
      await this.unsubscribe().catch(() => undefined);
      if (run !== this.run) return;
    }
    this.saved = saved;
    this.current = from ?? this.saved;
    this.sinceCheckpoint = 0;
    this.subscription = this.deps.events.subscribeToAll({
      after: this.current,
      // An event still in flight when a later start or stop took this subscription is not applied.
      onEvent: (e) => (run === this.run ? this.handle(e) : undefined),
      // A subscription a later start or stop took may still report a failure: not this run's.
      onError: (err) => (run === this.run ? this.restartAfter(err) : undefined),
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.halt();
  }

  private async halt(): Promise<void> {
    this.run++;
    clearTimeout(this.restartTimer);
    await this.unsubscribe();
    await this.feeding;
    await this.flush();
  }

  /** Taken before its stop is awaited: a start may subscribe again meanwhile (a rebuild asked twice). */
  private unsubscribe(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    return subscription ? subscription.stop() : Promise.resolve();
  }

  /**
   * Drops the read model and its checkpoint, then replays the whole log into it. Rebuilds asked
   * together run one after the other. Resolves true once the replay has started; false when the
   * runner was stopped first (its turn does nothing) or during the reset (the next start replays):
   * the caller says the service is stopping. When the stop
   * or the reset fails (a store down), it throws and, unless stopped meanwhile, follows the log
   * again by itself as after a failed subscription: from its checkpoint if the reset was not begun,
   * else from zero, whatever checkpoint is stored (another process may save one while the documents
   * go), replaying over what a reset cut short left: each document skips the revisions it has
   * absorbed.
   */
  rebuild(): Promise<boolean> {
    const turn = this.rebuilding.then(() => this.rebuildNow());
    // The next turn waits for this one, whatever its outcome (the caller hears that).
    this.rebuilding = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  private async rebuildNow(): Promise<boolean> {
    if (this.stopped) return false;
    // No longer fed by a shared subscription: an event fed between the reset and start(0n) would land in the emptied store.
    this.ownSubscription = true;
    let from: bigint | undefined;
    try {
      await this.halt();
      from = 0n;
      await this.deps.store.reset(this.projection.name, this.projection.collection);
    } catch (err) {
      if (!this.stopped) this.restartAfter(err, from);
      throw err;
    }
    // A shutdown while the reset ran: no replay here; the next start replays from zero (the reset
    // dropped the checkpoint).
    if (this.stopped) return false;
    // From zero, not from the stored checkpoint: another process may have saved one meanwhile.
    await this.start(0n);
    // A stop while the start read its checkpoint: it never subscribed.
    return !this.stopped;
  }

  /** Resolves true once every event up to `position` has been applied; false after `timeoutMs`, or when `signal` aborts first. */
  waitFor(position: bigint, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.current >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { position, resolve };
      this.waiters.push(waiter);
      const giveUp = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(this.current >= position);
      };
      setTimeout(giveUp, timeoutMs).unref();
      if (signal?.aborted) giveUp();
      else signal?.addEventListener('abort', giveUp, { once: true });
    });
  }

  /** After a failure: waits (1 s, doubling while it keeps failing at one position, up to 30 s), then starts again. */
  private restartAfter(err: unknown, from?: bigint): void {
    const failures = this.failure?.position === this.current ? this.failure.failures + 1 : 1;
    this.failure = { position: this.current, failures, error: shortError(err) };
    const delay = Math.min(RESTART_MS * 2 ** (failures - 1), MAX_RESTART_MS);
    this.deps.logger?.error(
      { err, projection: this.projection.name, position: this.current.toString(), failures, retry_in_ms: delay },
      from === 0n
        ? 'projection stopped; restarting from the start of the log'
        : 'projection stopped; restarting from its checkpoint',
    );
    clearTimeout(this.restartTimer);
    const run = this.run;
    this.restartTimer = setTimeout(() => {
      if (run === this.run) void this.restart(from);
    }, delay);
    this.restartTimer.unref();
  }

  private async restart(from?: bigint): Promise<void> {
    const run = this.run;
    await this.unsubscribe().catch(() => undefined);
    if (run === this.run) await this.start(from);
  }

  private async handle(e: RecordedEvent): Promise<void> {
    if (reads(this.projection, e.streamId)) await this.apply(e);
    this.advance(e.position, 1);
    if (this.sinceCheckpoint >= CHECKPOINT_EVERY) await this.flush();
  }

  /** Everything up to `position` is applied: wake its waiters; the checkpoint follows in batches. */
  private advance(position: bigint, events: number): void {
    this.current = position;
    if (this.failure && position > this.failure.position) this.failure = undefined;
    this.sinceCheckpoint += events;
    if (this.sinceCheckpoint < CHECKPOINT_EVERY) this.flushWhenQuiet();
    if (this.waiters.length) {
      const done = this.waiters.filter((w) => w.position <= position);
      this.waiters = this.waiters.filter((w) => w.position > position);
      for (const w of done) w.resolve(true);
    }
  }

  /** Saves the position reached, if it moved; concurrent calls are chained, never interleaved. */
  private flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.sinceCheckpoint = 0;
    const position = this.current;
    const run = this.flushing
      .catch(() => undefined)
      .then(async () => {
        if (position <= this.saved) return;
        await this.deps.store.saveCheckpoint(this.projection.name, position);
        this.saved = position;
      });
    this.flushing = run;
    return run;
  }

  private flushWhenQuiet(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flush().catch((err: unknown) =>
        this.deps.logger?.warn({ err, projection: this.projection.name }, 'checkpoint not saved; will retry'),
      );
    }, CHECKPOINT_IDLE_MS);
    this.flushTimer.unref();
  }

  private async apply(e: RecordedEvent): Promise<void> {
    for (const id of documentIds(this.projection, e)) await this.applyAll(id, [e]);
  }

  /** Compare-and-set: re-read and re-apply when another runner wrote the document meanwhile. */
  private async applyAll(id: string, events: ProjectedEvent[]): Promise<void> {
    const { store } = this.deps;
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const stored = await store.get<unknown>(this.projection.collection, id);
      const next =
        events.length === 1
          ? applyEvent(this.projection, stored, events[0]!, id)
          : applyEvents(this.projection, stored, events, id);
      if (!next) return;
      if (await store.put(this.projection.collection, next, stored?.seq ?? null)) return;
    }
    throw new Error(`projection ${this.projection.name}: document ${id} kept changing under us`);
  }
}

/** An error in one line of at most 200 characters, for readiness and logs. */
export function shortError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const line = text.replace(/\s+/g, ' ');
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

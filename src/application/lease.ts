import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from '../ports/event-store.js';
import type { Logger } from '../shared/logger.js';
import { eventMetadata } from './event-metadata.js';

export const LEASE_STREAM_PREFIX = 'lease-';
const DEFAULT_TTL_MS = 10_000;
/** The lease stream keeps only its newest events: a renewal every two seconds adds up. */
const KEPT_EVENTS = 20;

export interface LeaseEventData {
  holder: string;
  ttl_ms: number;
}

export interface LeaseOptions {
  /** The work the lease guards, e.g. 'webhook-sender'; the stream is `lease-<name>`. */
  name: string;
  /** This replica's id; default `<hostname>/<pid>/<random>` (see replicaId). */
  holder?: string;
  /** How long a holder that stopped renewing keeps the lease in the eyes of the others. Default 10 s. */
  ttlMs?: number;
  /** How often to renew (holder) or look (standby). Default a fifth of the TTL. */
  tickMs?: number;
  /** Monotonic milliseconds; injected by tests. */
  now?: () => number;
  /** False: no timer, the caller calls tick() (tests). Default true. */
  timer?: boolean;
  /** Whether the process named by a holder id may still be running; default: see holderMayBeAlive. */
  mayBeAlive?: (holder: string) => boolean;
}

export interface LeaseCallbacks {
  /**
   * This replica now holds the lease: start the guarded work. `signal` aborts when the lease is lost
   * or given up while the start runs; onLost runs after the start has returned or thrown.
   */
  onAcquired(signal: AbortSignal): Promise<void>;
  /** It no longer does (or is stopping): stop the guarded work before returning. */
  onLost(): Promise<void>;
}

/** `<hostname>/<pid>/<random>`: unique per process start, and tells a dead process on this host. */
export function replicaId(): string {
  return `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
}

/**
 * False only when the holder is certainly gone: a process of this host (same hostname) whose pid
 * is this process's own (a container restarted under the same pid) or no longer exists. Then the
 * lease is taken at once instead of after the TTL, so one process restarting after a crash does
 * not wait. Any doubt (another host, a pid reused by another process) counts as alive.
 */
export function holderMayBeAlive(holder: string, self: string): boolean {
  const [host, pidText] = holder.split('/');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || holder === self) return true;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * A lease in the event store, so that of N replicas sharing it exactly one does some work (for
 * example sending webhooks), and a standby takes over when the holder dies. The holder appends a
 * renewal every tick with the revision it read; a standby that sees the stream unchanged for the
 * TTL, by its own clock, appends a takeover with that revision, and of concurrent takeovers the
 * expected revision lets one win. No clocks are compared across hosts: the holder counts its
 * validity from before its last successful renewal and steps down one tick before the TTL, so
 * it has stopped before any standby can have seen the TTL pass. What the lease guards must
 * still be safe on its own (it is a guide to who works, not a lock that fences writes: the
 * webhook sender's claims are).
 */
export class Lease {
  readonly holder: string;
  readonly stream: string;
  private readonly ttlMs: number;
  private readonly tickMs: number;
  private readonly now: () => number;
  private readonly mayBeAlive: (holder: string) => boolean;
  private readonly runTimer: boolean;
  private holding = false;
  private renewedAt = 0;
  private observed: { revision: number; since: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** Acquired and lost callbacks run one after the other, never overlapping. */
  private transitions: Promise<void> = Promise.resolve();
  /** Aborts the guarded work's start still running when the lease is lost. */
  private starting: AbortController | undefined;
  private callbacks: LeaseCallbacks | undefined;
  /** Moves at every start and stop: a start that a stop (or a newer start) overtook sets no timer. */
  private generation = 0;
  /** A stop still releasing: a start waits for it, or its release could give up what the start took. */
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly deps: { events: EventStore; logger?: Logger },
    options: LeaseOptions,
  ) {
    this.holder = options.holder ?? replicaId();
    this.stream = `${LEASE_STREAM_PREFIX}${options.name}`;
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.tickMs = options.tickMs ?? Math.max(1, Math.floor(this.ttlMs / 5));
    if (this.tickMs * 2 >= this.ttlMs) throw new RangeError('A lease needs at least two ticks per TTL');
    this.now = options.now ?? (() => performance.now());
    this.mayBeAlive = options.mayBeAlive ?? ((h) => holderMayBeAlive(h, this.holder));
    this.runTimer = options.timer ?? true;
  }

  /** True while this replica holds the lease and its last renewal is recent enough to rely on. */
  held(): boolean {
    return this.holding && this.now() - this.renewedAt < this.ttlMs - this.tickMs;
  }

  /**
   * Takes part: a first tick now (so a lone replica holds the lease when this resolves), then every
   * tick. The guarded work starts in the background (`settled` says when it has), renewals going on
   * meanwhile: a start that takes longer than the TTL (a sender's delivery log catching up with a
   * long event log) must not lose the lease for want of them.
   */
  async start(callbacks: LeaseCallbacks): Promise<void> {
    const generation = ++this.generation;
    if (this.stopping) {
      await this.stopping;
      if (generation !== this.generation) return;
    }
    this.callbacks = callbacks;
    await this.tick();
    // A stop during that first tick has run: no timer to outlive it.
    if (!this.runTimer || generation !== this.generation) return;
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.tick(), this.tickMs);
    this.timer.unref();
  }

  /** Resolves once the guarded work's latest start or stop has finished (or failed). */
  settled(): Promise<void> {
    return this.transitions;
  }

  /** Stops taking part; a holder stops its work, then releases the lease so a standby takes over at once. */
  stop(): Promise<void> {
    this.generation++;
    const previous = this.stopping;
    const stopping = (async () => {
      await previous;
      await this.release();
    })().finally(() => {
      if (this.stopping === stopping) this.stopping = undefined;
    });
    this.stopping = stopping;
    return stopping;
  }

  private async release(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    const wasHolding = this.holding;
    if (wasHolding) this.lose();
    await this.transitions;
    if (!wasHolding) return;
    try {
      const [last] = await this.deps.events.readStream(this.stream, { backwards: true, maxCount: 1 });
      if (last && last.data.holder === this.holder && last.type !== 'LeaseReleased') {
        await this.append('LeaseReleased', last.revision);
      }
    } catch (err) {
      // The others take over after the TTL instead.
      this.deps.logger?.warn({ err, lease: this.stream }, 'could not release the lease');
    }
  }

  /** One look at the stream: renew, take over, or note who holds it. Public for tests. */
  tick(): Promise<void> {
    this.ticking ??= this.look()
      .catch((err: unknown) => {
        this.deps.logger?.error({ err, lease: this.stream }, 'lease check failed');
        if (this.holding && !this.held()) this.lose(); // could not renew in time: step down
      })
      .finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async look(): Promise<void> {
    const started = this.now();
    if (this.holding && !this.held()) this.lose();
    const [last] = await this.deps.events.readStream(this.stream, { backwards: true, maxCount: 1 });
    if (!last) return this.acquire('no_stream', started);
    const { holder } = last.data as unknown as LeaseEventData;
    const released = last.type === 'LeaseReleased';
    if (holder === this.holder && !released && this.holding) {
      if (await this.append('LeaseRenewed', last.revision)) this.renewedAt = started;
      else this.lose();
      return;
    }
    if (this.holding) this.lose(); // someone else took it
    if (released || !this.mayBeAlive(holder)) return this.acquire(last.revision, started);
    // Another holder, or this one's own record after it stepped down: taken once unchanged for the TTL.
    if (this.observed?.revision !== last.revision) this.observed = { revision: last.revision, since: started };
    else if (started - this.observed.since >= this.ttlMs) await this.acquire(last.revision, started);
  }

  private async acquire(expected: ExpectedRevision, started: number): Promise<void> {
    if (!(await this.append('LeaseAcquired', expected))) return;
    if (expected === 'no_stream') await this.deps.events.setStreamMaxCount(this.stream, KEPT_EVENTS);
    this.holding = true;
    this.renewedAt = started;
    this.observed = undefined;
    this.deps.logger?.info({ lease: this.stream, holder: this.holder }, 'lease acquired');
    const callbacks = this.callbacks;
    const starting = (this.starting = new AbortController());
    this.transitions = this.transitions
      // Lost before its turn (behind a slow onLost): nothing to start, onLost follows.
      .then(() => (starting.signal.aborted ? undefined : callbacks?.onAcquired(starting.signal)))
      .then(() => {
        if (this.starting === starting) this.starting = undefined;
      })
      .catch((err: unknown) => {
        if (starting.signal.aborted) return; // lost meanwhile: onLost follows
        this.deps.logger?.error({ err, lease: this.stream }, 'could not start the work of the lease; stepping down');
        if (this.holding) this.lose();
      });
  }

  private lose(): void {
    this.holding = false;
    this.starting?.abort();
    this.starting = undefined;
    this.deps.logger?.info({ lease: this.stream, holder: this.holder }, 'lease lost or given up');
    const callbacks = this.callbacks;
    this.transitions = this.transitions
      .then(() => callbacks?.onLost())
      .catch((err: unknown) => {
        this.deps.logger?.error({ err, lease: this.stream }, 'could not stop the work of the lease');
      });
  }

  /** False when another replica appended first. */
  private async append(
    type: 'LeaseAcquired' | 'LeaseRenewed' | 'LeaseReleased',
    expectedRevision: ExpectedRevision,
  ): Promise<boolean> {
    const data: LeaseEventData = { holder: this.holder, ttl_ms: this.ttlMs };
    try {
      await this.deps.events.append(
        this.stream,
        [{ type, data: { ...data }, metadata: eventMetadata({ actor: 'system' }) }],
        // Nothing waits for the record to be on disk: the others read it once committed, the
        // processes sharing an embedded log share its host (a power loss that takes a record back
        // ends them all), and the claims fence what the lease guards. A renewal then shares the next
        // durable append's sync; only on an idle log does it get one of its own, 10 ms later.
        { expectedRevision, durability: 'ordered' },
      );
      return true;
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) return false;
      throw err;
    }
  }
}

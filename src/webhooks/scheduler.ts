import { isApiError } from '../domain/errors.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { AttemptTrigger } from '../domain/webhook/delivery-events.js';
import { deliveryInProgress } from './attempt.js';
import { dueAt, type DeliveryState } from '../domain/webhook/delivery-state.js';
import { EndpointAgenda, type AgendaEntry } from './agenda.js';

export interface SchedulerOptions {
  /** Attempts in flight at once, over all endpoints. */
  concurrency?: number;
  /** Attempts in flight at once to one partner's endpoint, so one slow endpoint cannot take every slot. */
  perEndpoint?: number;
  /** How often the production loop looks for due attempts. */
  pollMs?: number;
}

type Attempt = (deliveryId: string, trigger: AttemptTrigger, requestId: string | null) => Promise<DeliveryState | null>;

const BACKOFF_AFTER_ERROR_MS = 60_000;

/**
 * The in-memory agenda of due attempts; the durable truth is the delivery log (each delivery's
 * status and next_attempt_at), from which `load` rebuilds it at start. `runDue()` runs everything
 * due at the clock's current time to the end (tests drive it with a ManualClock); `start()` adds a
 * timer that does the same in production.
 */
export class DeliveryScheduler {
  private readonly entries = new Map<string, AgendaEntry>();
  /** The same entries by endpoint: a pump looks only at endpoints with a free slot. */
  private readonly byEndpoint = new Map<string, EndpointAgenda>();
  private readonly inFlight = new Map<string, { done: Promise<void>; endpoint: string }>();
  private timer: NodeJS.Timeout | undefined;
  /** Shutting down: no scheduled attempt starts any more, not even after a start(). */
  private draining = false;
  private readonly concurrency: number;
  private readonly perEndpoint: number;

  constructor(
    private readonly deps: {
      attempt: Attempt;
      clock: Clock;
      logger?: Logger;
      senderGone?: (sender: string) => boolean;
    },
    private readonly options: SchedulerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 16;
    this.perEndpoint = options.perEndpoint ?? 4;
  }

  start(): void {
    if (this.draining) return;
    this.timer ??= setInterval(() => this.pump(), this.options.pollMs ?? 1000);
    this.timer.unref();
  }

  /**
   * Starts no more scheduled attempts, for good (the process is shutting down): an attempt started
   * now could outlast the shutdown's deadline and go unrecorded. Those in flight go on; `stop` waits
   * for them. What is due stays due in the delivery log for the next sender.
   */
  drain(): void {
    this.draining = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops starting attempts and waits for those in flight (their outcomes are recorded). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.entries.clear();
    this.byEndpoint.clear();
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  /** Whether the delivery is on the agenda (an attempt in flight is not, unless it is also due later). */
  scheduled(deliveryId: string): boolean {
    return this.entries.has(deliveryId);
  }

  /** Whether the delivery is on the agenda or being attempted. */
  knows(deliveryId: string): boolean {
    return this.entries.has(deliveryId) || this.inFlight.has(deliveryId);
  }

  /** Adds, moves or drops a delivery according to its state, then starts whatever is due. */
  track(state: DeliveryState): void {
    const due = dueAt(state, this.deps.senderGone);
    this.forget(state.id);
    if (due !== null) {
      const entry: AgendaEntry = {
        id: state.id,
        lane: state.order_id ?? state.id,
        rank: [state.order_revision ?? 0, state.type_index],
        endpoint: endpointOf(state),
        dueAt: Date.parse(due),
        attempted: state.attempt_count > 0,
      };
      this.entries.set(entry.id, entry);
      let agenda = this.byEndpoint.get(entry.endpoint);
      if (!agenda) this.byEndpoint.set(entry.endpoint, (agenda = new EndpointAgenda()));
      agenda.add(entry);
    }
    if (this.timer) this.pump();
  }

  private forget(deliveryId: string): void {
    const entry = this.entries.get(deliveryId);
    if (!entry) return;
    this.entries.delete(deliveryId);
    const agenda = this.byEndpoint.get(entry.endpoint)!;
    agenda.remove(deliveryId);
    if (agenda.size === 0) this.byEndpoint.delete(entry.endpoint);
  }

  /** Starts every attempt due now and waits until none is due or in flight. */
  async runDue(): Promise<void> {
    for (;;) {
      this.pump();
      if (this.inFlight.size === 0) return;
      await Promise.all([...this.inFlight.values()].map((f) => f.done));
    }
  }

  /**
   * An attempt now, outside the schedule (redelivery). Refused (delivery_in_progress) while an
   * attempt of the same delivery is in flight here; otherwise it waits for a free slot of the
   * endpoint (the per-endpoint limit holds for redeliveries too).
   */
  async attemptNow(
    deliveryId: string,
    owner: { partner_id: string; environment: string },
    requestId: string | null = null,
  ): Promise<DeliveryState | null> {
    const endpoint = endpointOf(owner);
    for (;;) {
      if (this.inFlight.has(deliveryId)) throw deliveryInProgress(deliveryId);
      const busy = [...this.inFlight.values()].filter((f) => f.endpoint === endpoint);
      if (busy.length < this.perEndpoint) break;
      await Promise.race(busy.map((f) => f.done));
    }
    let state: DeliveryState | null = null;
    await this.run(deliveryId, endpoint, 'redelivery', (s) => (state = s), requestId);
    return state;
  }

  /** Attempts in flight at once to one endpoint (redeliveries wait for a free one). */
  get endpointConcurrency(): number {
    return this.perEndpoint;
  }

  pending(): number {
    return this.entries.size;
  }

  /**
   * Starts the due attempts there are slots for, earliest due first: per slot, the earliest
   * candidate of each endpoint with a free slot (the top of its agenda's heap), so a pump costs
   * O(endpoints + log n) per attempt started, whatever the backlog.
   */
  private pump(): void {
    if (this.draining || this.inFlight.size >= this.concurrency) return;
    const now = this.deps.clock.now().getTime();
    const busy = new Map<string, number>();
    for (const { endpoint } of this.inFlight.values()) busy.set(endpoint, (busy.get(endpoint) ?? 0) + 1);
    const attempting = (id: string) => this.inFlight.has(id);
    try {
      while (this.inFlight.size < this.concurrency) {
        let next: { entry: AgendaEntry; agenda: EndpointAgenda } | undefined;
        for (const [endpoint, agenda] of this.byEndpoint) {
          if ((busy.get(endpoint) ?? 0) >= this.perEndpoint) continue;
          const entry = agenda.next(now, attempting);
          if (entry && (!next || entry.dueAt < next.entry.dueAt)) next = { entry, agenda };
        }
        if (!next) return;
        const { entry, agenda } = next;
        agenda.take();
        busy.set(entry.endpoint, (busy.get(entry.endpoint) ?? 0) + 1);
        void this.run(entry.id, entry.endpoint, 'schedule', (s) => (s ? this.track(s) : this.forget(entry.id)));
      }
    } finally {
      for (const agenda of this.byEndpoint.values()) agenda.unpark();
    }
  }

  private run(
    id: string,
    endpoint: string,
    trigger: AttemptTrigger,
    done: (s: DeliveryState | null) => void,
    requestId: string | null = null,
  ): Promise<void> {
    // In flight before the attempt begins: a pump it causes at once (through track) counts it.
    const flight = { done: Promise.resolve(), endpoint };
    this.inFlight.set(id, flight);
    let attempt: Promise<DeliveryState | null>;
    try {
      attempt = this.deps.attempt(id, trigger, requestId);
    } catch (err) {
      attempt = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const running = attempt
      .then(done, (err: unknown) => {
        // A redelivery refused (in progress) is the caller's answer, not a fault.
        if (trigger === 'redelivery' && isApiError(err)) throw err;
        this.deps.logger?.error(
          { err, delivery_id: id },
          'webhook attempt could not be made or recorded; will try again',
        );
        // Taken off its endpoint's agenda when started: it goes back, due later.
        const entry = this.entries.get(id);
        if (entry)
          this.byEndpoint.get(entry.endpoint)!.reschedule(id, this.deps.clock.now().getTime() + BACKOFF_AFTER_ERROR_MS);
        if (trigger === 'redelivery') throw err;
      })
      .finally(() => {
        this.inFlight.delete(id);
        if (this.timer) this.pump();
      });
    flight.done = running.catch(() => undefined);
    return running;
  }
}

function endpointOf(owner: { partner_id: string; environment: string }): string {
  return `${owner.partner_id}:${owner.environment}`;
}

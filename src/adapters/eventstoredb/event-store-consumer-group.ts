import {
  DISPATCH_TO_SINGLE,
  NotFoundError,
  PARK,
  PersistentSubscriptionDoesNotExistError,
  PersistentSubscriptionExistsError,
  RETRY,
  START,
  StreamNotFoundError,
  UnsupportedError,
  persistentSubscriptionToAllSettingsFromDefaults,
  type EventStoreDBClient,
  type PersistentSubscriptionToAll,
  type PersistentSubscriptionToAllResolvedEvent,
  type PersistentSubscriptionToAllSettings,
} from '@eventstore/db-client';
import type {
  ConsumerGroup,
  ConsumerGroupOptions,
  ConsumerHandler,
  ConsumerOutcome,
  RecordedEvent,
} from '../../ports/event-store.js';
import { matchesFilter, serverFilter, toRecordedEvent, type ForeignEventHandler } from './event-store-mapping.js';
import { consume } from './reads.js';

const DEFAULT_MAX_RETRIES = 10;
const DEFAULT_MAX_HANDLER_MS = 30_000;
const RECONNECT_DELAY_MS = 1000;

/**
 * How long the server waits for an ack before it hands the event to another consumer: twice the
 * longest a handler may take, and at least ten seconds more, so a slow handler is never raced by a
 * second delivery of its own event. A consumer whose connection drops (a crash) does not wait for
 * it: the server retries that consumer's events as soon as it sees the connection go.
 */
export function messageTimeoutFor(maxHandlerMs: number): number {
  return Math.max(2 * maxHandlerMs, maxHandlerMs + 10_000);
}

/** The settings the adapter owns; the others keep the server's defaults (or what an operator set). */
type OwnedSettings = Pick<
  PersistentSubscriptionToAllSettings,
  'maxRetryCount' | 'messageTimeout' | 'consumerStrategyName' | 'checkPointAfter' | 'checkPointLowerBound'
>;

/**
 * A persistent subscription to $all. Created, or updated where its settings differ, on start and
 * before every reconnection (a group an operator deleted comes back). By default one message in
 * flight (bufferSize 1) and a single active consumer keep delivery in global order; a retried
 * message is redelivered before newer ones. With `concurrency` N, up to N are in flight, each acked
 * on its own. Dropped connections are re-established after a short delay.
 */
export class EsdbConsumerGroup implements ConsumerGroup {
  private stopped = true;
  private subscription: PersistentSubscriptionToAll | undefined;
  private loop: Promise<void> | undefined;
  private wakeFromDelay: (() => void) | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly owned: OwnedSettings;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly options: ConsumerGroupOptions,
    private readonly onForeign?: ForeignEventHandler,
  ) {
    this.owned = {
      maxRetryCount: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      messageTimeout: messageTimeoutFor(options.maxHandlerMs ?? DEFAULT_MAX_HANDLER_MS),
      consumerStrategyName: DISPATCH_TO_SINGLE,
      // Checkpoint after every second of acks (default: 10 messages / 2 s), so a restart
      // re-delivers at most about a second of already-acked events.
      checkPointAfter: 1000,
      checkPointLowerBound: 1,
    };
  }

  async start(handler: ConsumerHandler): Promise<void> {
    if (this.loop) throw new Error(`Consumer group ${this.options.group} is already started`);
    await this.ensureGroup();
    this.stopped = false;
    this.loop = this.run(handler);
  }

  /** Stops reading, lets in-flight handlers finish and records their outcomes, then unsubscribes. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeFromDelay?.();
    await Promise.allSettled(this.inFlight);
    const sub = this.subscription;
    if (sub) {
      await sub.unsubscribe();
      sub.destroy(); // ends the for-await even if the cancelled call never ends the stream
    }
    await this.loop;
    this.loop = undefined;
  }

  async parked(): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      const stream = `$persistentsubscription-$all::${this.options.group}-parked`;
      for await (const resolved of consume(this.client.readStream(stream, { resolveLinkTos: true }))) {
        const event = toRecordedEvent(resolved, this.onForeign);
        if (event) out.push(event);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  async position(): Promise<bigint> {
    try {
      return (
        (await this.client.getPersistentSubscriptionToAllInfo(this.options.group)).stats.lastCheckpointedEventPosition
          ?.commit ?? 0n
      );
    } catch (err) {
      if (err instanceof PersistentSubscriptionDoesNotExistError || err instanceof NotFoundError) return 0n;
      throw err;
    }
  }

  /**
   * Create-or-update. Updating only where a setting differs matters: the server disconnects a
   * group's consumers on every update, so replicas starting one after another would otherwise
   * knock each other off. The filter cannot be changed on an existing group (EventStoreDB keeps
   * the one it was created with).
   */
  private async ensureGroup(): Promise<void> {
    const { group } = this.options;
    let current: PersistentSubscriptionToAllSettings | undefined;
    try {
      current = (await this.client.getPersistentSubscriptionToAllInfo(group)).settings;
    } catch (err) {
      const missing = err instanceof PersistentSubscriptionDoesNotExistError || err instanceof NotFoundError;
      if (!missing && !(err instanceof UnsupportedError)) throw err;
    }
    if (current) {
      const differs = (Object.keys(this.owned) as Array<keyof OwnedSettings>).some((k) => current[k] !== this.owned[k]);
      if (differs) await this.client.updatePersistentSubscriptionToAll(group, { ...current, ...this.owned });
      return;
    }
    const settings = persistentSubscriptionToAllSettingsFromDefaults({ ...this.owned, startFrom: START });
    try {
      await this.client.createPersistentSubscriptionToAll(group, settings, {
        filter: serverFilter(this.options.filter),
      });
    } catch (err) {
      if (!(err instanceof PersistentSubscriptionExistsError)) throw err; // another replica made it first
    }
  }

  private async run(handler: ConsumerHandler): Promise<void> {
    // The server holds at most `concurrency` unacknowledged events for us; each is acked on its own.
    const concurrency = Math.max(1, this.options.concurrency ?? 1);
    while (!this.stopped) {
      const sub = this.client.subscribeToPersistentSubscriptionToAll(this.options.group, { bufferSize: concurrency });
      this.subscription = sub;
      try {
        for await (const resolved of sub) {
          // Not handled once stopping: unacked, the server redelivers it when we unsubscribe.
          if (this.stopped) break;
          const task = this.settle(sub, handler, resolved).finally(() => this.inFlight.delete(task));
          this.inFlight.add(task);
          if (this.inFlight.size >= concurrency) await Promise.race(this.inFlight);
        }
        if (!this.stopped) throw new Error(`the persistent subscription ${this.options.group} ended without an error`);
      } catch (err) {
        if (!this.stopped) this.report(err);
      }
      // Outcomes go out on the call they arrived on, so it is cancelled only after they are sent.
      await Promise.allSettled(this.inFlight);
      if (this.stopped) return;
      await sub.unsubscribe();
      sub.destroy();
      await this.delay(RECONNECT_DELAY_MS);
      if (!this.stopped) await this.ensureGroup().catch((err: unknown) => this.report(err));
    }
  }

  /** Handles one delivered event and acks or nacks it. */
  private async settle(
    sub: PersistentSubscriptionToAll,
    handler: ConsumerHandler,
    resolved: PersistentSubscriptionToAllResolvedEvent,
  ): Promise<void> {
    const event = toRecordedEvent(resolved, this.onForeign);
    if (!event || !matchesFilter(event, this.options.filter)) {
      await sub.ack(resolved);
      return;
    }
    const outcome = await this.handle(handler, event, resolved.retryCount);
    if (outcome === 'ack') await sub.ack(resolved);
    else if (outcome === 'park' || resolved.retryCount >= this.owned.maxRetryCount) {
      await sub.nack(PARK, outcome === 'park' ? 'handler parked it' : 'retries exhausted', resolved);
    } else await sub.nack(RETRY, 'handler asked to retry', resolved);
  }

  private async handle(handler: ConsumerHandler, event: RecordedEvent, retryCount: number): Promise<ConsumerOutcome> {
    try {
      return await handler(event, { retryCount });
    } catch (err) {
      this.report(err);
      return 'retry';
    }
  }

  private delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeFromDelay = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private report(err: unknown): void {
    if (this.options.onError) this.options.onError(err);
    else console.error(`consumer group ${this.options.group}:`, err);
  }
}

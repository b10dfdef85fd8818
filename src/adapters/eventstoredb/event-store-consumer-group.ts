import {
  DISPATCH_TO_SINGLE,
  PARK,
  PersistentSubscriptionExistsError,
  RETRY,
  START,
  StreamNotFoundError,
  persistentSubscriptionToAllSettingsFromDefaults,
  type EventStoreDBClient,
  type PersistentSubscriptionToAll,
  type PersistentSubscriptionToAllResolvedEvent,
} from '@eventstore/db-client';
import type {
  ConsumerGroup,
  ConsumerGroupOptions,
  ConsumerHandler,
  ConsumerOutcome,
  RecordedEvent,
} from '../../ports/event-store.js';
import { matchesFilter, serverFilter, toRecordedEvent } from './event-store-mapping.js';

const DEFAULT_MAX_RETRIES = 10;
const RECONNECT_DELAY_MS = 1000;

/**
 * A persistent subscription to $all. Created on first start (an existing group keeps the
 * settings and filter it was created with). By default one message in flight (bufferSize 1) and a
 * single active consumer keep delivery in global order; a retried message is redelivered before
 * newer ones. With `concurrency` N, up to N are in flight, each acked on its own. Dropped
 * connections are re-established after a short delay.
 */
export class EsdbConsumerGroup implements ConsumerGroup {
  private stopped = true;
  private subscription: PersistentSubscriptionToAll | undefined;
  private loop: Promise<void> | undefined;
  private wakeFromDelay: (() => void) | undefined;
  private readonly maxRetries: number;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly options: ConsumerGroupOptions,
  ) {
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  }

  async start(handler: ConsumerHandler): Promise<void> {
    if (this.loop) throw new Error(`Consumer group ${this.options.group} is already started`);
    await this.ensureCreated();
    this.stopped = false;
    this.loop = this.run(handler);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeFromDelay?.();
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
      for await (const resolved of this.client.readStream(stream, { resolveLinkTos: true })) {
        const event = toRecordedEvent(resolved);
        if (event) out.push(event);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  private async ensureCreated(): Promise<void> {
    const settings = persistentSubscriptionToAllSettingsFromDefaults({
      startFrom: START,
      maxRetryCount: this.maxRetries,
      consumerStrategyName: DISPATCH_TO_SINGLE,
      // Checkpoint after every second of acks (default: 10 messages / 2 s), so a restart
      // re-delivers at most about a second of already-acked events.
      checkPointLowerBound: 1,
      checkPointAfter: 1000,
    });
    try {
      await this.client.createPersistentSubscriptionToAll(this.options.group, settings, {
        filter: serverFilter(this.options.filter),
      });
    } catch (err) {
      if (!(err instanceof PersistentSubscriptionExistsError)) throw err;
    }
  }

  private async run(handler: ConsumerHandler): Promise<void> {
    while (!this.stopped) {
      // The server holds at most `concurrency` unacknowledged events for us; each is acked on its own.
      const concurrency = Math.max(1, this.options.concurrency ?? 1);
      const sub = this.client.subscribeToPersistentSubscriptionToAll(this.options.group, { bufferSize: concurrency });
      this.subscription = sub;
      const inFlight = new Set<Promise<void>>();
      try {
        for await (const resolved of sub) {
          const task = this.settle(sub, handler, resolved).finally(() => inFlight.delete(task));
          inFlight.add(task);
          if (inFlight.size >= concurrency) await Promise.race(inFlight);
          if (this.stopped) break;
        }
      } catch (err) {
        await Promise.allSettled(inFlight);
        if (this.stopped) return;
        this.report(err);
      }
      await Promise.allSettled(inFlight);
      if (!this.stopped) await this.delay(RECONNECT_DELAY_MS);
    }
  }

  /** Handles one delivered event and acks or nacks it. */
  private async settle(sub: PersistentSubscriptionToAll, handler: ConsumerHandler, resolved: PersistentSubscriptionToAllResolvedEvent): Promise<void> {
    let event: RecordedEvent | undefined;
    try {
      event = toRecordedEvent(resolved);
    } catch (err) {
      this.report(err); // not an event this service can read: set it aside
      await sub.nack(PARK, 'unreadable event', resolved);
      return;
    }
    if (!event || !matchesFilter(event, this.options.filter)) {
      await sub.ack(resolved);
      return;
    }
    const outcome = await this.handle(handler, event, resolved.retryCount);
    if (outcome === 'ack') await sub.ack(resolved);
    else if (outcome === 'park' || resolved.retryCount >= this.maxRetries) {
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

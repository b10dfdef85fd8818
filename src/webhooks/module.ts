import type { Config } from '../config.js';
import type { EventStore } from '../ports/event-store.js';
import type { WebhookEndpointStore } from '../ports/webhook-endpoint-store.js';
import type { ReadModelStore } from '../ports/read-model-store.js';
import type { ReadModels } from '../application/read-models.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { webhookDeliveries } from '../../projections/webhook-deliveries.js';
import { attemptDelivery } from './attempt.js';
import { ReceiverConnections } from './sender.js';
import { WebhookDeliveries } from './deliveries.js';
import { DeliveryLog } from './delivery-log.js';
import { WebhookEvents } from './events.js';
import type { DeliveryState } from '../domain/webhook/delivery-state.js';
import { WEBHOOK_DISPATCHER_GROUP, WebhookDispatcher } from './dispatcher.js';
import { noopMetrics, type ServiceMetrics, type WebhookAttemptOutcome } from '../shared/metrics.js';
import { WebhookEndpoints } from './endpoints.js';
import { DeliveryScheduler, type SchedulerOptions } from './scheduler.js';
import { Lease, holderMayBeAlive, type LeaseOptions } from '../application/lease.js';
import { loadOrCreateKeyFile, parseKeyFromConfig } from './secret-box.js';
import type { Resolver } from './ssrf-guard.js';

/** Knobs tests turn; production uses the defaults (system DNS, the spec's 8 s, a 10 s lease). */
export interface WebhookOptions {
  resolve?: Resolver;
  timeoutMs?: number;
  scheduler?: SchedulerOptions;
  lease?: Pick<LeaseOptions, 'holder' | 'ttlMs' | 'tickMs'>;
}

/** The lease that makes one replica the webhook sender (lease-webhook-sender in the event store). */
export const WEBHOOK_SENDER_LEASE = 'webhook-sender';
/**
 * How often the sender looks for deliveries it does not know yet: pending ones another replica
 * scheduled (a webhook.test event).
 */
const RESCAN_MS = 5_000;

export interface Webhooks {
  endpoints: WebhookEndpoints;
  deliveries: WebhookDeliveries;
  /** The events API: every webhook event, sent or not. */
  events: WebhookEvents;
  scheduler: DeliveryScheduler;
  dispatcher: WebhookDispatcher;
  /** Held by the one replica that turns order events into deliveries and sends them. */
  lease: Lease;
  start(): Promise<void>;
  /** Starts no more scheduled attempts (shutting down); in-flight ones go on. */
  drain(): void;
  /** Drains, then stops the guarded work (waiting for in-flight attempts) and releases the lease. */
  stop(): Promise<void>;
}

/** How long start waits for the delivery log to include the whole event log before resuming retries. */
export const LOG_CATCH_UP_MS = 120_000;
const LOAD_PAGE = 500;

/** WEBHOOK_SECRETS_KEY when set, else the key file the embedded default keeps under DATA_DIR. */
export function webhookSecretsKey(config: Config): Buffer {
  return config.WEBHOOK_SECRETS_KEY
    ? parseKeyFromConfig(config.WEBHOOK_SECRETS_KEY)
    : loadOrCreateKeyFile(config.dataDir);
}

export function createWebhooks(deps: {
  config: Config;
  events: EventStore;
  endpointStore: WebhookEndpointStore;
  readModels: ReadModels;
  clock: Clock;
  logger: Logger;
  metrics?: ServiceMetrics;
  options?: WebhookOptions;
}): Webhooks {
  const { config, events, readModels, clock, logger, metrics = noopMetrics, options = {} } = deps;
  const urls = {
    allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE_URLS,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  };
  const endpoints = new WebhookEndpoints({ store: deps.endpointStore, key: webhookSecretsKey(config), clock, urls });
  const log = new DeliveryLog(events);
  // The lease and the metrics name this replica alike. Without metrics (components built in tests)
  // the lease makes its own id: the no-op metrics' fixed name would be shared by every service.
  const lease = new Lease(
    { events, logger },
    {
      name: WEBHOOK_SENDER_LEASE,
      holder: metrics.replica === noopMetrics.replica ? undefined : metrics.replica,
      ...options.lease,
    },
  );
  // A claim by a process of this host that no longer runs is abandoned at once, not after 20 s.
  const senderGone = (sender: string) => !holderMayBeAlive(sender, lease.holder);
  const connections = new ReceiverConnections();
  const attemptDeps = {
    connections,
    log,
    endpoints,
    clock,
    urls,
    sender: lease.holder,
    senderGone,
    logger,
    onOutcome: (outcome: WebhookAttemptOutcome, ms: number) => metrics.webhookAttempt(outcome, ms / 1000),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  };
  const scheduler = new DeliveryScheduler(
    {
      attempt: (id, trigger, requestId) => attemptDelivery(attemptDeps, id, trigger, requestId),
      clock,
      logger,
      senderGone,
    },
    options.scheduler,
  );
  // Only the sender keeps an agenda; elsewhere a delivery scheduled here (webhook.test) waits for its rescan.
  const scheduling = { track: (state: DeliveryState) => void (lease.held() && scheduler.track(state)) };
  const dispatcher = new WebhookDispatcher({ events, endpoints, log, scheduler: scheduling, clock, logger });
  const deliveries = new WebhookDeliveries({ readModels, log, scheduler, dispatcher, endpoints, clock, logger });
  let rescan: NodeJS.Timeout | undefined;

  /**
   * Every delivery the log says is pending (or also retrying) that the agenda does not have yet.
   * On taking over (`takeover`, aborted if the lease is lost meanwhile) the log must first include
   * the whole event log; a rescan takes it as it is.
   */
  const resume = async (statuses: readonly string[], takeover?: AbortSignal): Promise<void> => {
    if (takeover && !(await readModels.catchUp(webhookDeliveries.name, LOG_CATCH_UP_MS, takeover))) {
      takeover.throwIfAborted();
      throw new Error('the webhook delivery log did not catch up with the event log; cannot resume deliveries');
    }
    await trackUnfinished({ store: readModels.store, log, scheduler }, statuses, { fromLog: !takeover });
  };

  const unregister: Array<() => void> = [];
  const sender = {
    // Resume the durable schedule first: every delivery the log says is pending or retrying.
    async onAcquired(signal: AbortSignal) {
      metrics.setLeaseHeld(WEBHOOK_SENDER_LEASE, true);
      await resume(['pending', 'retrying'], signal);
      signal.throwIfAborted();
      scheduler.start();
      await dispatcher.start();
      unregister.push(
        metrics.onRetryQueueDepth(() => scheduler.pending()),
        metrics.onConsumerGroupLag(WEBHOOK_DISPATCHER_GROUP, () => dispatcher.lag()),
      );
      rescan = setInterval(
        () => void resume(['pending']).catch((err: unknown) => logger.error({ err }, 'webhook rescan failed')),
        RESCAN_MS,
      );
      rescan.unref();
    },
    async onLost() {
      metrics.setLeaseHeld(WEBHOOK_SENDER_LEASE, false);
      for (const off of unregister.splice(0)) off();
      clearInterval(rescan);
      await dispatcher.stop();
      await scheduler.stop();
    },
  };

  return {
    endpoints,
    deliveries,
    events: new WebhookEvents({ readModels, events, clock }),
    scheduler,
    dispatcher,
    lease,
    start: () => {
      // A standby that has never held the lease reports 0, not nothing: an alert on the sum sees it.
      metrics.setLeaseHeld(WEBHOOK_SENDER_LEASE, false);
      return lease.start(sender);
    },
    drain: () => scheduler.drain(),
    stop: async () => {
      scheduler.drain();
      await deliveries.stopRecoveries();
      await lease.stop();
      await connections.close();
    },
  };
}

/**
 * Puts on the agenda every delivery the read model lists with one of these statuses that the
 * scheduler does not know. `fromLog` (the rescan, while this replica sends): each is read again from
 * its stream first, since the read model trails the log. A delivery this replica has just sent can
 * still read there as pending, or as being sent (its claim in, its outcome not yet), and tracked from
 * that it would wait for the claim to count as abandoned (20 s) and hold back the next event of its
 * order as long. At takeover the read model has caught up with the log, and only what is on the
 * agenda is skipped: a redelivery asked of this replica while it stood by may be in flight, and
 * nothing puts its delivery back on the agenda when it ends (the agenda holds an entry back while
 * its delivery is attempted, and an attempt reads the stream first).
 */
export async function trackUnfinished(
  deps: { store: ReadModelStore; log: DeliveryLog; scheduler: DeliveryScheduler },
  statuses: readonly string[],
  { fromLog }: { fromLog: boolean },
): Promise<void> {
  const { store, log, scheduler } = deps;
  const known = (id: string) => (fromLog ? scheduler.knows(id) : scheduler.scheduled(id));
  for (const status of statuses) {
    for await (const listed of unfinished(store, status)) {
      if (known(listed.id)) continue;
      const state = fromLog ? (await log.load(listed.id))?.state : listed;
      // Checked again: an attempt may have started while the stream was read.
      if (state && !known(state.id)) scheduler.track(state);
    }
  }
}

async function* unfinished(store: ReadModelStore, status: string): AsyncGenerator<DeliveryState> {
  let after: { value: string; id: string } | undefined;
  for (;;) {
    const page = await store.find<DeliveryState>(webhookDeliveries.collection, {
      where: { status },
      sort: { field: 'created_at', direction: 'asc' },
      limit: LOAD_PAGE,
      ...(after ? { after } : {}),
    });
    for (const row of page) yield row.doc;
    const last = page[page.length - 1];
    if (!last || page.length < LOAD_PAGE) return;
    after = { value: last.doc.created_at, id: last.id };
  }
}

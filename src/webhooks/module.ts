import type { Config } from '../config.js';
import type { EventStore } from '../ports/event-store.js';
import type { WebhookEndpointStore } from '../ports/webhook-endpoint-store.js';
import type { ReadModels } from '../application/read-models.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { webhookDeliveries } from '../../projections/webhook-deliveries.js';
import { attemptDelivery } from './attempt.js';
import { WebhookDeliveries } from './deliveries.js';
import { DeliveryLog } from './delivery-log.js';
import type { DeliveryState } from './delivery-state.js';
import { WebhookDispatcher } from './dispatcher.js';
import { WebhookEndpoints } from './endpoints.js';
import { DeliveryScheduler, type SchedulerOptions } from './scheduler.js';
import { loadOrCreateKeyFile, parseKeyFromConfig } from './secret-box.js';
import type { Resolver } from './ssrf-guard.js';

/** Knobs tests turn; production uses the defaults (system DNS, the spec's 8 s). */
export interface WebhookOptions {
  resolve?: Resolver;
  timeoutMs?: number;
  scheduler?: SchedulerOptions;
}

export interface Webhooks {
  endpoints: WebhookEndpoints;
  deliveries: WebhookDeliveries;
  scheduler: DeliveryScheduler;
  dispatcher: WebhookDispatcher;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** How long start waits for the delivery log to include the whole event log before resuming retries. */
const LOG_CATCH_UP_MS = 120_000;
const LOAD_PAGE = 500;

/** WEBHOOK_SECRETS_KEY when set, else the key file the embedded default keeps under DATA_DIR. */
export function webhookSecretsKey(config: Config): Buffer {
  return config.WEBHOOK_SECRETS_KEY ? parseKeyFromConfig(config.WEBHOOK_SECRETS_KEY) : loadOrCreateKeyFile(config.dataDir);
}

export function createWebhooks(deps: {
  config: Config;
  events: EventStore;
  endpointStore: WebhookEndpointStore;
  readModels: ReadModels;
  clock: Clock;
  logger: Logger;
  options?: WebhookOptions;
}): Webhooks {
  const { config, events, readModels, clock, logger, options = {} } = deps;
  const urls = { allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE_URLS, ...(options.resolve ? { resolve: options.resolve } : {}) };
  const endpoints = new WebhookEndpoints({ store: deps.endpointStore, key: webhookSecretsKey(config), clock, urls });
  const log = new DeliveryLog(events);
  const attemptDeps = { log, endpoints, clock, urls, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) };
  const scheduler = new DeliveryScheduler({ attempt: (id, trigger) => attemptDelivery(attemptDeps, id, trigger), clock, logger }, options.scheduler);
  const dispatcher = new WebhookDispatcher({ events, endpoints, log, scheduler, clock, logger });
  const deliveries = new WebhookDeliveries({ readModels, log, scheduler, dispatcher, endpoints, clock });

  return {
    endpoints,
    deliveries,
    scheduler,
    dispatcher,
    async start() {
      // Resume the durable schedule first: every delivery the log says is pending or retrying.
      if (!(await readModels.catchUp(webhookDeliveries.name, LOG_CATCH_UP_MS))) {
        throw new Error('the webhook delivery log did not catch up with the event log; cannot resume deliveries');
      }
      for (const status of ['pending', 'retrying']) {
        for await (const state of unfinished(readModels, status)) scheduler.track(state);
      }
      scheduler.start();
      await dispatcher.start();
    },
    async stop() {
      await dispatcher.stop();
      await scheduler.stop();
    },
  };
}

async function* unfinished(readModels: ReadModels, status: string): AsyncGenerator<DeliveryState> {
  let after: { value: string; id: string } | undefined;
  for (;;) {
    const page = await readModels.store.find<DeliveryState>(webhookDeliveries.collection, {
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

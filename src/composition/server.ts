import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import { createApp, type App } from '../http/app.js';
import { KeyResolver } from '../application/key-resolver.js';
import { KeyRateLimiter } from '../application/rate-limits.js';
import { CatalogService } from '../application/catalog-service.js';
import { OrderService } from '../application/orders/order-service.js';
import { RiderLocations } from '../application/orders/rider-locations.js';
import { DeliveryQuotes } from '../application/orders/quotes.js';
import { Sandbox } from '../application/orders/sandbox.js';
import { AUTO_ACCEPT_GROUP, AutoAccept } from '../application/orders/auto-accept.js';
import { BuiltinCheckout } from '../application/payments/builtin-checkout.js';
import { ReadModels } from '../application/read-models.js';
import { OrderQueries } from '../application/orders/order-queries.js';
import { OrderSearch } from '../application/orders/order-search.js';
import { PartnerAdmin } from '../application/partners.js';
import { AuditJob } from '../application/audit/audit-job.js';
import { servedByReadModels } from '../application/audit/verify.js';
import { auditRunner } from './audit-runner.js';
import { WEBHOOK_DISPATCHER_GROUP } from '../webhooks/dispatcher.js';
import { orderReadRoutes } from '../http/routes/order-reads.js';
import { pingRoutes } from '../http/routes/ping.js';
import { healthRoutes } from '../http/routes/health.js';
import { orderRoutes } from '../http/routes/orders.js';
import { internalRoutes } from '../http/routes/internal.js';
import { internalReadModelRoutes } from '../http/routes/internal-read-models.js';
import { checkoutRoutes } from '../http/routes/checkout.js';
import { catalogRoutes } from '../http/routes/catalog.js';
import { webhookRoutes } from '../http/routes/webhooks.js';
import { eventRoutes } from '../http/routes/events.js';
import { metricsRoutes } from '../http/routes/metrics.js';
import {
  LOG_CATCH_UP_MS,
  createWebhooks,
  webhookSecretsKey,
  type WebhookOptions,
  type Webhooks,
} from '../webhooks/module.js';
import { webhookDeliveries } from '../../projections/webhook-deliveries.js';
import type { Stores } from './stores.js';
import { PrometheusMetrics } from './metrics.js';
import { timedEventStore } from './timed-event-store.js';
import { watchStorage } from './storage-watch.js';

export interface Services {
  catalog: CatalogService;
  orders: OrderService;
  riders: RiderLocations;
  quotes: DeliveryQuotes;
  sandbox: Sandbox;
  checkout: BuiltinCheckout;
  readModels: ReadModels;
  queries: OrderQueries;
}

export interface Service {
  app: App;
  stores: Stores;
  services: Services;
  /** Stops background work; the caller closes the stores afterwards. */
  stop(): Promise<void>;
  /** /readyz answers 503 from now on and no new webhook attempt starts (SIGTERM, before the drain). */
  markShuttingDown(): void;
  /** Webhook endpoints, dispatcher and delivery scheduler (tests drive `webhooks.scheduler.runDue()`). */
  webhooks: Webhooks;
  /** This service's metrics (its own registry); `metrics.scrape()` for METRICS_PORT. */
  metrics: PrometheusMetrics;
  /** The console's `audit verify` job. */
  audit: AuditJob;
}

/** Application services over the stores; shared by the server and the CLI. */
export async function buildServices(
  config: Config,
  stores: Stores,
  deps: { logger: Logger; clock: Clock; pollCatalog?: boolean },
): Promise<Services> {
  const catalog = new CatalogService({ store: stores.catalog, logger: deps.logger });
  await catalog.start({ poll: deps.pollCatalog ?? false });
  const checkout = new BuiltinCheckout({ events: stores.events, clock: deps.clock, baseUrl: config.publicBaseUrl });
  // Quotes are signed with a key derived from the service's secret key (src/application/orders/quotes.ts).
  const quotes = new DeliveryQuotes({ secretKey: () => webhookSecretsKey(config), clock: deps.clock });
  const orders = new OrderService({ events: stores.events, catalog, clock: deps.clock, payments: checkout, quotes });
  const riders = new RiderLocations({ events: stores.events, clock: deps.clock });
  const sandbox = new Sandbox({ orders, riders, catalog });
  const readModels = new ReadModels({ events: stores.events, store: stores.readModels, logger: deps.logger });
  const queries = new OrderQueries({ readModels, clock: deps.clock });
  return { catalog, orders, riders, quotes, sandbox, checkout, readModels, queries };
}

/** Wires the application: stores -> application services -> HTTP routes and background workers. */
export async function buildService(
  config: Config,
  rawStores: Stores,
  deps: {
    logger: Logger;
    clock: Clock;
    webhooks?: WebhookOptions;
    /** Awaited before each console audit runs: lets a test hold one in `running`. */
    auditGate?: () => Promise<void>;
  },
): Promise<Service> {
  let shuttingDown = false;
  const metrics = new PrometheusMetrics();
  // Every append of the service is timed (event_store_append_duration_seconds); the adapters are unchanged.
  // Writes failing for lack of storage make /readyz fail until one succeeds (storage-watch.ts).
  const storage = watchStorage(timedEventStore(rawStores.events, metrics), deps);
  const stores: Stores = { ...rawStores, events: storage.events };
  const services = await buildServices(config, stores, { ...deps, pollCatalog: true });
  metrics.watchProjections(() => services.readModels.status());
  await services.readModels.start();
  // The embedded read models start empty and replay the whole log: listening only once they have,
  // since a read meanwhile would wait 2 s, then answer with part of the documents. MongoDB's keep
  // their checkpoints, and one far behind (a reset, a new read model) must not hold the port.
  if (config.READ_STORE === 'embedded') await services.readModels.initialCatchUp();
  const purging = purgeExpiredReadModels(rawStores, services.readModels, deps);
  const autoAccept = new AutoAccept({
    events: stores.events,
    orders: services.orders,
    catalog: services.catalog,
    logger: deps.logger,
  });
  await autoAccept.start();
  const stopAutoAcceptLag = metrics.onConsumerGroupLag(AUTO_ACCEPT_GROUP, () => autoAccept.lag());
  const webhooks = createWebhooks({
    config,
    events: stores.events,
    endpointStore: stores.webhookEndpoints,
    readModels: services.readModels,
    clock: deps.clock,
    logger: deps.logger,
    metrics,
    ...(deps.webhooks ? { options: deps.webhooks } : {}),
  });
  await webhooks.start();

  const routes = [
    ...healthRoutes({
      readiness: stores.readiness,
      storage: storage.check,
      readModels: () => services.readModels.stuckReport(),
      isShuttingDown: () => shuttingDown,
    }),
    ...pingRoutes({ clock: deps.clock }),
    ...orderRoutes({ orders: services.orders, sandbox: services.sandbox }),
    ...orderReadRoutes({ queries: services.queries }),
    ...checkoutRoutes({ checkout: services.checkout, orders: services.orders }),
    ...internalRoutes({ orders: services.orders, riders: services.riders }),
    ...internalReadModelRoutes({ readModels: services.readModels }),
    ...catalogRoutes({ catalog: services.catalog, clock: deps.clock, quotes: services.quotes }),
    ...webhookRoutes({ endpoints: webhooks.endpoints, deliveries: webhooks.deliveries }),
    ...eventRoutes({ events: webhooks.events }),
    // With METRICS_PORT the metrics are served there instead (src/main.ts), not on the API's port.
    ...(config.METRICS_PORT === undefined ? metricsRoutes({ scrape: () => metrics.scrape() }) : []),
  ];
  // The replay and the comparison run in a worker thread with its own heap limit (audit-runner.ts).
  const auditRun = auditRunner({
    events: stores.events,
    served: servedByReadModels(services.readModels, 'this replica'),
    waitMs: 10_000,
    now: () => deps.clock.now(),
    maxMemoryMb: config.AUDIT_WORKER_MEMORY_MB,
  });
  const audit = new AuditJob({
    run: auditRun.run,
    cancel: auditRun.cancel,
    ...(deps.auditGate ? { gate: deps.auditGate } : {}),
    events: stores.events,
    replica: metrics.replica,
    clock: deps.clock,
    logger: deps.logger,
  });
  const httpsOnly = config.PUBLIC_BASE_URL?.startsWith('https:') === true;
  const app = createApp({
    logger: deps.logger,
    keys: new KeyResolver(stores.partners),
    limits: new KeyRateLimiter((points) => stores.rateLimiterFactory(points)),
    routes,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    adminToken: config.ADMIN_TOKEN,
    trustProxy: config.TRUST_PROXY,
    authFailuresPerMin: config.AUTH_FAILURES_PER_MIN,
    metrics,
    hsts: httpsOnly,
    console: {
      events: stores.events,
      search: new OrderSearch({ readModels: services.readModels, events: stores.events }),
      readModels: services.readModels,
      deliveries: webhooks.deliveries,
      partners: new PartnerAdmin(stores.partners, deps.clock, config.DEFAULT_RATE_LIMIT_PER_MIN),
      eventStoreUiUrl: config.EVENT_STORE === 'eventstoredb' ? config.EVENTSTORE_UI_URL : undefined,
      audit,
      clock: deps.clock,
      httpsOnly,
      consumerGroups: async () => [
        { name: AUTO_ACCEPT_GROUP, lag: await autoAccept.lag(), parked: await autoAccept.parked() },
        {
          name: WEBHOOK_DISPATCHER_GROUP,
          lag: await webhooks.dispatcher.lag(),
          parked: await webhooks.dispatcher.parked(),
        },
      ],
    },
  });
  return {
    app,
    stores: rawStores,
    services,
    webhooks,
    metrics,
    audit,
    stop: async () => {
      // First: a running audit reads the stores closed below.
      await audit.cancel();
      services.catalog.stop();
      stopAutoAcceptLag();
      await autoAccept.stop();
      await webhooks.stop();
      purging.stop();
      await services.readModels.stop();
    },
    markShuttingDown: () => {
      shuttingDown = true;
      // An attempt started during the drain could outlast the shutdown deadline and go unrecorded.
      webhooks.drain();
    },
  };
}

/** How often a replica deletes read-model documents past their retention (the delivery log keeps 30 days). */
const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Purges expired read-model documents with the service's clock: once the delivery log has caught
 * up (a replay brings old deliveries back), then every hour. MongoDB's TTL index does it too where
 * the server has TTL indexes; every replica purging is harmless.
 */
function purgeExpiredReadModels(
  stores: Stores,
  readModels: ReadModels,
  deps: { logger: Logger; clock: Clock },
): { stop(): void } {
  const purge = () =>
    stores.readModels.purgeExpired?.(deps.clock.now()).then(
      (purged) => deps.logger.info({ purged }, 'purged read-model documents past their retention'),
      (err: unknown) =>
        deps.logger.error({ err }, 'purging read-model documents past their retention failed; next try in an hour'),
    );
  let stopped = false;
  void readModels.catchUp(webhookDeliveries.name, LOG_CATCH_UP_MS).then(() => {
    if (!stopped) void purge();
  });
  const timer = setInterval(() => void purge(), PURGE_EVERY_MS);
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

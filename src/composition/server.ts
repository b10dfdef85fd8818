import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import { createApp, type App } from '../http/app.js';
import { KeyResolver } from '../application/key-resolver.js';
import { KeyRateLimiter } from '../application/rate-limits.js';
import { CatalogService } from '../application/catalog-service.js';
import { OrderService } from '../application/orders/order-service.js';
import { RiderLocations } from '../application/orders/rider-locations.js';
import { AutoAccept } from '../application/orders/auto-accept.js';
import { BuiltinCheckout } from '../application/payments/builtin-checkout.js';
import { ReadModels } from '../application/read-models.js';
import { OrderQueries } from '../application/orders/order-queries.js';
import { orderReadRoutes } from '../http/routes/order-reads.js';
import { pingRoutes } from '../http/routes/ping.js';
import { healthRoutes } from '../http/routes/health.js';
import { orderRoutes } from '../http/routes/orders.js';
import { internalRoutes } from '../http/routes/internal.js';
import { internalReadModelRoutes } from '../http/routes/internal-read-models.js';
import { checkoutRoutes } from '../http/routes/checkout.js';
import { catalogRoutes } from '../http/routes/catalog.js';
import { webhookRoutes } from '../http/routes/webhooks.js';
import { createWebhooks, type WebhookOptions, type Webhooks } from '../webhooks/module.js';
import type { Stores } from './stores.js';

export interface Services {
  catalog: CatalogService;
  orders: OrderService;
  riders: RiderLocations;
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
  markShuttingDown(): void;
  /** Webhook endpoints, dispatcher and delivery scheduler (tests drive `webhooks.scheduler.runDue()`). */
  webhooks: Webhooks;
}

/** Application services over the stores; shared by the server and the CLI. */
export async function buildServices(config: Config, stores: Stores, deps: { logger: Logger; clock: Clock; pollCatalog?: boolean }): Promise<Services> {
  const catalog = new CatalogService({ store: stores.catalog, logger: deps.logger });
  await catalog.start({ poll: deps.pollCatalog ?? false });
  const checkout = new BuiltinCheckout({ events: stores.events, clock: deps.clock, baseUrl: config.publicBaseUrl });
  const orders = new OrderService({ events: stores.events, catalog, clock: deps.clock, payments: checkout });
  const riders = new RiderLocations({ events: stores.events, clock: deps.clock });
  const readModels = new ReadModels({ events: stores.events, store: stores.readModels, logger: deps.logger });
  const queries = new OrderQueries({ readModels, clock: deps.clock });
  return { catalog, orders, riders, checkout, readModels, queries };
}

/** Wires the application: stores -> application services -> HTTP routes and background workers. */
export async function buildService(config: Config, stores: Stores, deps: { logger: Logger; clock: Clock; webhooks?: WebhookOptions }): Promise<Service> {
  let shuttingDown = false;
  const services = await buildServices(config, stores, { ...deps, pollCatalog: true });
  await services.readModels.start();
  const autoAccept = new AutoAccept({ events: stores.events, orders: services.orders, catalog: services.catalog, logger: deps.logger });
  await autoAccept.start();
  const webhooks = createWebhooks({
    config,
    events: stores.events,
    endpointStore: stores.webhookEndpoints,
    readModels: services.readModels,
    clock: deps.clock,
    logger: deps.logger,
    ...(deps.webhooks ? { options: deps.webhooks } : {}),
  });
  await webhooks.start();

  const routes = [
    ...healthRoutes({ readiness: stores.readiness, isShuttingDown: () => shuttingDown }),
    ...pingRoutes({ clock: deps.clock }),
    ...orderRoutes({ orders: services.orders }),
    ...orderReadRoutes({ queries: services.queries }),
    ...checkoutRoutes({ checkout: services.checkout, orders: services.orders }),
    ...internalRoutes({ orders: services.orders, riders: services.riders }),
    ...internalReadModelRoutes({ readModels: services.readModels }),
    ...catalogRoutes({ catalog: services.catalog, clock: deps.clock }),
    ...webhookRoutes({ endpoints: webhooks.endpoints, deliveries: webhooks.deliveries }),
  ];
  const app = createApp({
    logger: deps.logger,
    keys: new KeyResolver(stores.partners),
    limits: new KeyRateLimiter((points) => stores.rateLimiterFactory(points)),
    routes,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    adminToken: config.ADMIN_TOKEN,
  });
  return {
    app,
    stores,
    services,
    webhooks,
    stop: async () => {
      services.catalog.stop();
      await autoAccept.stop();
      await webhooks.stop();
      await services.readModels.stop();
    },
    markShuttingDown: () => {
      shuttingDown = true;
    },
  };
}

import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import { createApp, type App } from '../http/app.js';
import { KeyResolver } from '../application/key-resolver.js';
import { KeyRateLimiter } from '../application/rate-limits.js';
import { pingRoutes } from '../http/routes/ping.js';
import { healthRoutes } from '../http/routes/health.js';
import type { Stores } from './stores.js';

export interface Service {
  app: App;
  stores: Stores;
  /** Stops background work; the caller closes the stores afterwards. */
  stop(): Promise<void>;
  markShuttingDown(): void;
}

/** Wires the application: stores -> application services -> HTTP routes. No I/O happens before this. */
export async function buildService(config: Config, stores: Stores, deps: { logger: Logger; clock: Clock }): Promise<Service> {
  let shuttingDown = false;
  const keys = new KeyResolver(stores.partners);
  const limits = new KeyRateLimiter((points) => stores.rateLimiterFactory(points));
  const routes = [
    ...healthRoutes({ readiness: stores.readiness, isShuttingDown: () => shuttingDown }),
    ...pingRoutes({ clock: deps.clock }),
  ];
  const app = createApp({
    logger: deps.logger,
    keys,
    limits,
    routes,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    adminToken: config.ADMIN_TOKEN,
  });
  return {
    app,
    stores,
    stop: async () => {},
    markShuttingDown: () => {
      shuttingDown = true;
    },
  };
}

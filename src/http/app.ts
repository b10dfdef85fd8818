import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../shared/logger.js';
import type { ServiceMetrics } from '../shared/metrics.js';
import type { KeyResolver } from '../application/key-resolver.js';
import type { KeyRateLimiter } from '../application/rate-limits.js';
import { assignRequestId } from './middleware/request-id.js';
import { accessLog } from './middleware/access-log.js';
import { requestMetrics } from './middleware/request-metrics.js';
import { jsonBody } from './middleware/body.js';
import { framingRefusal } from './middleware/framing.js';
import { AuthThrottle, adminGuard, authenticator, rateLimiter } from './middleware/auth.js';
import { errorMapper } from './middleware/errors.js';
import { notFound } from './middleware/not-found.js';
import { routeDispatcher } from './mount.js';
import type { RouteSpec } from './route.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { parseQueryString } from './validation.js';
import { openApiRoutes } from './routes/openapi.js';
import { consoleRouter, type ConsoleDeps } from './console/router.js';

export interface AppDeps {
  logger: Logger;
  keys: KeyResolver;
  limits: KeyRateLimiter;
  routes: RouteSpec[];
  bodyLimitBytes: number;
  adminToken?: string | undefined;
  /** Express's `trust proxy` (TRUST_PROXY): whose X-Forwarded-For names the client; none when absent. */
  trustProxy?: string | number | undefined;
  /** Failed authentications per client address and minute before they answer 429 (AUTH_FAILURES_PER_MIN); 0: off. */
  authFailuresPerMin?: number | undefined;
  /** Where each answered request is reported (method, route pattern, status, seconds); none when absent. */
  metrics?: Pick<ServiceMetrics, 'httpRequest'>;
  /**
   * PUBLIC_BASE_URL is https: every answer of the app sends Strict-Transport-Security, so a browser
   * that has been there (the console, a checkout page, the API reference) keeps to HTTPS.
   */
  hsts?: boolean | undefined;
  /** The operations console at /console, served only when adminToken is set too. */
  console?: ConsoleDeps | undefined;
}

/** /console and everything under it. */
const isConsolePath = (url: string): boolean => url.startsWith('/console') && /^\/console(?:[/?]|$)/.test(url);

export interface App {
  express: Express;
  routes: RouteSpec[];
  /** The partner document (/v1/openapi.json): every route outside /internal and /checkout, and the webhooks. */
  openApiDocument(): Record<string, unknown>;
  /** The operators' document (/internal/openapi.json): /internal and /checkout. */
  internalOpenApiDocument(): Record<string, unknown>;
}

/**
 * Builds the Express app without listening, so tests drive it with supertest.
 * Order: request id -> access log -> request metrics -> (per route) auth -> rate limit -> scope ->
 * body parsing -> validation -> handler -> error mapper.
 */
export function createApp(deps: AppDeps): App {
  let document: Record<string, unknown> | undefined;
  let internalDocument: Record<string, unknown> | undefined;
  const openApiDocument = () => (document ??= buildOpenApiDocument(routes));
  const internalOpenApiDocument = () => (internalDocument ??= buildOpenApiDocument(routes, { audience: 'operator' }));
  const routes: RouteSpec[] = [...deps.routes, ...openApiRoutes(openApiDocument, internalOpenApiDocument)];

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (deps.trustProxy !== undefined) app.set('trust proxy', deps.trustProxy);
  app.set('query parser', parseQueryString);

  const unrouted = notFound(routes);
  const startLog = accessLog(deps.logger);
  const startMetrics = deps.metrics ? requestMetrics(deps.metrics) : undefined;
  const throttle = new AuthThrottle({ logger: deps.logger, failures: deps.authFailuresPerMin });
  // The admin token (/internal and the console's login) has a budget of its own: a partner's
  // client failing behind the operators' address does not lock the operators out.
  const adminThrottle = new AuthThrottle({ logger: deps.logger, failures: deps.authFailuresPerMin });
  const dispatch = routeDispatcher(
    routes,
    {
      authenticate: authenticator(deps.keys, throttle),
      rateLimit: rateLimiter(deps.limits),
      requireAdmin: adminGuard(deps.adminToken, adminThrottle),
      readBody: jsonBody(deps.bodyLimitBytes),
    },
    unrouted,
  );
  // The console parses its own form bodies (the API takes JSON only) and answers in HTML.
  const operatorsConsole =
    deps.console && deps.adminToken
      ? consoleRouter(deps.console, { adminToken: deps.adminToken, throttle: adminThrottle, logger: deps.logger })
      : undefined;
  // Express would answer OPTIONS itself with a text/plain 200; this API has no OPTIONS (no browser CORS).
  const route = (req: Request, res: Response, next: NextFunction): void =>
    req.method === 'OPTIONS' ? unrouted(req, res, next) : dispatch(req, res, next);
  // Every step of a request in one middleware (each Express layer costs a dispatch per request):
  // request id, access log, request metrics, then the route (which reads a body once the key is known).
  app.use((req, res, next) => {
    assignRequestId(req, res);
    if (deps.hsts) res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    startLog(req, res);
    startMetrics?.(req, res);
    const refused = framingRefusal(req);
    if (refused) {
      res.setHeader('Connection', 'close');
      return next(refused);
    }
    if (operatorsConsole && isConsolePath(req.url)) return operatorsConsole(req, res, next);
    route(req, res, next);
  });
  app.use(errorMapper(deps.logger));
  return { express: app, routes, openApiDocument, internalOpenApiDocument };
}

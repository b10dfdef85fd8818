import type { NextFunction, Request, Response } from 'express';
import Router from 'find-my-way';
import { ApiError } from '../domain/errors.js';
import { parseOrThrow, refuseRepeatedHeaders } from './validation.js';
import { sendJson } from './middleware/json-response.js';
import { hasBodyHeaders } from './middleware/body.js';
import { refusesUnknownQuery, type RouteSpec } from './route.js';
import { z } from './openapi/zod.js';
import type { Principal } from '../application/key-resolver.js';
import { extend } from '../shared/objects.js';

export interface MountOptions {
  /** Resolves the Bearer key or throws 401 missing_api_key / invalid_api_key. */
  authenticate(req: Request): Principal | Promise<Principal>;
  /** Consumes one request of the key's budget, sets RateLimit-* headers, throws 429 when over. */
  rateLimit(principal: Principal, res: Response): Promise<void>;
  /** Checks the operations token or throws (429 instead of 401 once the address has failed too often). */
  requireAdmin(req: Request): void;
  /** Reads and parses a JSON body into `req.body` (400, 413 or 415 when it cannot). */
  readBody(req: Request, res: Response, done: (err?: unknown) => void): void;
}

type Params = Record<string, string>;

const NO_QUERY = z.object({}).strict();

/** A route without query parameters: any sent is refused by name where `refusesUnknownQuery`. */
function noQuery(route: RouteSpec, req: Request): object {
  // Most requests have no query string: then nothing is parsed.
  if (refusesUnknownQuery(route) && req.url.includes('?')) parseOrThrow(NO_QUERY, req.query ?? {}, 'query');
  return {};
}

/** What the router stores per route: the spec, and `{ path }` set as `req.route` for the access log. */
interface Matched {
  route: RouteSpec;
  info: { path: string };
}

function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ApiError('validation_error', 'The path is not valid percent-encoding.', { param: 'path' });
  }
}

/**
 * find-my-way with Express's rules: exact, case-sensitive, one optional trailing slash; HEAD is
 * served by GET. find-my-way decodes the whole path before matching (`/v1/p%69ng` would be
 * `/v1/ping`, and a bad escape anywhere a plain miss), so each `%` is passed escaped as `%25`:
 * it then matches the path as sent and hands back parameter values still encoded, which `run`
 * decodes (a bad escape there is a 400). find-my-way tries fixed segments before parameters where
 * Express tried routes in list order; they differ only for a fixed path listed after a parameter
 * route that also matches it (unreachable under Express), and no two routes here overlap so.
 */
function buildRouter(routes: RouteSpec[]): Router.Instance<Router.HTTPVersion.V1> {
  // No parameter length limit (Express has none); the request line's own limit bounds it.
  const router = Router({ ignoreTrailingSlash: true, maxParamLength: Number.MAX_SAFE_INTEGER });
  const noop = (): void => undefined;
  for (const route of routes) {
    const store: Matched = { route, info: { path: route.path } };
    router.on(route.method.toUpperCase() as Router.HTTPMethod, route.path, noop, store);
  }
  return router;
}

// body-parser leaves req.body undefined when the request carried no body at all.
const hasBody = (req: Request): boolean => req.body !== undefined;

const NO_BODY = z.object({}).strict();

/**
 * The request body as the route's schema gives it (undefined when it takes none). A route that takes
 * none refuses fields sent anyway where it refuses unknown query parameters: a rebuild sent
 * `{"dry_run": true}` must not rebuild (an empty object passes, as on POST routes).
 */
function validBody(route: RouteSpec, req: Request): unknown {
  const schema = route.request?.body;
  if (!schema) {
    if (hasBody(req) && refusesUnknownQuery(route)) parseOrThrow(NO_BODY, req.body, 'body');
    return undefined;
  }
  if (hasBody(req)) return parseOrThrow(schema, req.body, 'body');
  if (!route.request?.bodyOptional)
    throw new ApiError('validation_error', 'A JSON request body is required.', { param: 'body' });
  return undefined;
}

function readBody(options: MountOptions, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) =>
    options.readBody(req, res, (err) => {
      // body-parser's failures are Errors (http-errors); errors.ts maps them by their `type`.
      if (err === undefined || err === null) resolve();
      else reject(err instanceof Error ? err : new Error('the request body could not be read', { cause: err }));
    }),
  );
}

/**
 * One function that routes a request and runs its route: auth, rate limit, scope, validation,
 * handler, envelope. Express's router would cost a layer dispatch per route tried; find-my-way is
 * one radix-tree walk. No match goes to `unrouted` (404/405); errors go to `next`.
 */
export function routeDispatcher(
  routes: RouteSpec[],
  options: MountOptions,
  unrouted: (req: Request, res: Response, next: NextFunction) => void,
) {
  const router = buildRouter(routes);

  async function run(
    route: RouteSpec,
    values: Record<string, string | undefined>,
    req: Request,
    res: Response,
  ): Promise<void> {
    const auth = route.auth ?? 'key';
    let principal: Principal | undefined;
    if (auth === 'key') {
      const found = options.authenticate(req);
      principal = found instanceof Promise ? await found : found;
      res.locals.principal = principal;
      await options.rateLimit(principal, res);
      if (route.scope && !principal.key.scopes.includes(route.scope)) {
        throw new ApiError('insufficient_scope', `This endpoint requires the ${route.scope} scope.`);
      }
      if (route.sandboxOnly && principal.key.environment !== 'sandbox') throw new ApiError('sandbox_only');
    } else if (auth === 'admin') {
      options.requireAdmin(req);
    }
    // Only an authenticated request within its budget has its body read and its path decoded:
    // a client without a key gets its 401 (or 429) whatever it sent.
    if (hasBodyHeaders(req)) await readBody(options, req, res);
    const raw: Params = Object.create(null) as Params;
    for (const name in values) raw[name] = decodeParam(values[name]!);
    req.params = raw;
    const { request = {} } = route;
    // Typed per route by its schemas; the dispatcher serves every route, so here they are unknown.
    const params: unknown = request.params ? parseOrThrow(request.params, raw, 'path') : raw;
    const query: unknown = request.query ? parseOrThrow(request.query, req.query ?? {}, 'query') : noQuery(route, req);
    if (request.headers) refuseRepeatedHeaders(Object.keys(request.headers.shape), req.rawHeaders);
    const headers = request.headers ? parseOrThrow(request.headers, req.headers, 'header') : {};
    const ctx = {
      params,
      query,
      headers: headers as Record<string, string | undefined>,
      principal: principal as Principal,
      requestId: res.locals.requestId as string,
      clientRequestId: res.locals.clientRequestId as string | undefined,
      req,
      res,
    };
    const result =
      (route.beforeBody && (await route.beforeBody(ctx))) ||
      (await route.handler(extend(ctx, { body: validBody(route, req) })));
    if (result.headers) for (const name in result.headers) res.setHeader(name, result.headers[name]!);
    const status = result.status ?? 200;
    if (result.raw) {
      res.status(status).type(result.raw.contentType).send(result.raw.body);
      return;
    }
    const payload: Record<string, unknown> = { data: result.data };
    if (result.pagination !== undefined) payload.pagination = result.pagination;
    sendJson(req, res, status, payload);
  }

  return (req: Request, res: Response, next: NextFunction): void => {
    const path = req.path.includes('%') ? req.path.replaceAll('%', '%25') : req.path;
    const found = router.find((req.method === 'HEAD' ? 'GET' : req.method) as Router.HTTPMethod, path);
    if (!found) return unrouted(req, res, next);
    const matched = found.store as Matched;
    req.route = matched.info;
    run(matched.route, found.params, req, res).catch(next);
  };
}

import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../domain/errors.js';
import { parseOrThrow } from './validation.js';
import { sendJson } from './middleware/json-response.js';
import type { RouteSpec } from './route.js';
import type { Principal } from '../application/key-resolver.js';

export interface MountOptions {
  /** Resolves the Bearer key or throws 401 missing_api_key / invalid_api_key. */
  authenticate(req: Request): Principal | Promise<Principal>;
  /** Consumes one request of the key's budget, sets RateLimit-* headers, throws 429 when over. */
  rateLimit(principal: Principal, res: Response): Promise<void>;
  /** Checks the operations token or throws. */
  requireAdmin(req: Request): void;
}

type Params = Record<string, string>;

interface Compiled {
  /** Position in the route list: when several routes match, the first one wins (as in Express). */
  order: number;
  route: RouteSpec;
  /** `{ path }`, set as `req.route` for the access log. */
  info: { path: string };
  /** Parameter names and the pattern, for paths with parameters. */
  names: string[];
  regex: RegExp | undefined;
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(route: RouteSpec, order: number): Compiled {
  const names: string[] = [];
  const source = route.path
    .split(/(:[A-Za-z0-9_]+)/)
    .map((part) => (part.startsWith(':') ? (names.push(part.slice(1)), '([^/]+)') : escapeRegex(part)))
    .join('');
  // As Express's router with strict routing off: exact, case-sensitive, one optional trailing slash.
  return { order, route, info: { path: route.path }, names, regex: names.length ? new RegExp(`^${source}/?$`) : undefined };
}

function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ApiError('validation_error', 'The path is not valid percent-encoding.', { param: 'path' });
  }
}

/**
 * The route table: paths without parameters in a map (one lookup), the others tried in order,
 * both per method. Matching rules are Express's router's (see `compile`); HEAD is served by GET.
 */
class RouteTable {
  private readonly fixed = new Map<string, Map<string, Compiled>>();
  private readonly patterns = new Map<string, Compiled[]>();

  constructor(routes: RouteSpec[]) {
    routes.forEach((route, i) => {
      const c = compile(route, i);
      const method = route.method.toUpperCase();
      if (c.regex) {
        const list = this.patterns.get(method) ?? [];
        list.push(c);
        this.patterns.set(method, list);
      } else {
        const byPath = this.fixed.get(method) ?? new Map<string, Compiled>();
        if (!byPath.has(route.path)) byPath.set(route.path, c);
        this.fixed.set(method, byPath);
      }
    });
  }

  /** The matching route and its raw (not yet decoded) parameter values, or undefined. */
  match(method: string, path: string): { c: Compiled; values: RegExpExecArray | undefined } | undefined {
    const m = method === 'HEAD' ? 'GET' : method;
    const byPath = this.fixed.get(m);
    let best = byPath?.get(path);
    if (best === undefined && path.length > 1 && path.endsWith('/')) best = byPath?.get(path.slice(0, -1));
    const list = this.patterns.get(m);
    if (list) {
      for (const c of list) {
        if (best !== undefined && c.order > best.order) break;
        const values = c.regex!.exec(path);
        if (values) return { c, values };
      }
    }
    return best === undefined ? undefined : { c: best, values: undefined };
  }
}

// body-parser leaves req.body undefined when the request carried no body at all.
const hasBody = (req: Request): boolean => req.body !== undefined;

/**
 * One function that routes a request and runs its route: auth, rate limit, scope, validation,
 * handler, envelope. Express's router would cost a layer dispatch per route tried; this is a map
 * lookup for most paths. No match goes to `unrouted` (404/405); errors go to `next`.
 */
export function routeDispatcher(routes: RouteSpec[], options: MountOptions, unrouted: (req: Request, res: Response, next: NextFunction) => void) {
  const table = new RouteTable(routes);

  async function run(c: Compiled, values: RegExpExecArray | undefined, req: Request, res: Response): Promise<void> {
    const route = c.route;
    // Parameters are decoded first, as Express's router did while matching; a bad escape is a 400.
    const raw: Params = Object.create(null) as Params;
    if (values) for (let i = 0; i < c.names.length; i++) raw[c.names[i]!] = decodeParam(values[i + 1]!);
    req.params = raw;
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
    } else if (auth === 'admin') {
      options.requireAdmin(req);
    }
    const { request = {} } = route;
    const params = request.params ? parseOrThrow(request.params, raw, 'path') : raw;
    const query = request.query ? parseOrThrow(request.query, req.query ?? {}, 'query') : {};
    const headers = request.headers ? parseOrThrow(request.headers, req.headers, 'header') : {};
    let body: unknown = undefined;
    if (request.body) {
      if (hasBody(req)) body = parseOrThrow(request.body, req.body, 'body');
      else if (!request.bodyOptional) throw new ApiError('validation_error', 'A JSON request body is required.', { param: 'body' });
    }
    const result = await route.handler({
      params,
      query,
      body,
      headers: headers as Record<string, string | undefined>,
      principal: principal as Principal,
      requestId: res.locals.requestId as string,
      req,
      res,
    });
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
    const found = table.match(req.method, req.path);
    if (!found) return unrouted(req, res, next);
    req.route = found.c.info;
    run(found.c, found.values, req, res).catch(next);
  };
}

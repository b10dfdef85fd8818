import type { NextFunction, Request, Response, Router } from 'express';
import { ApiError } from '../domain/errors.js';
import { parseOrThrow } from './validation.js';
import type { RouteSpec } from './route.js';
import type { Principal } from '../application/key-resolver.js';

export interface MountOptions {
  /** Resolves the Bearer key or throws 401 missing_api_key / invalid_api_key. */
  authenticate(req: Request): Promise<Principal>;
  /** Consumes one request of the key's budget, sets RateLimit-* headers, throws 429 when over. */
  rateLimit(principal: Principal, res: Response): Promise<void>;
  /** Checks the operations token or throws. */
  requireAdmin(req: Request): void;
}

// body-parser leaves req.body undefined when the request carried no body at all.
const hasBody = (req: Request): boolean => req.body !== undefined;

/** Mounts each route on the router: validation, scope, handler, envelope. Errors go to the error mapper. */
export function mountRoutes(router: Router, routes: RouteSpec[], options: MountOptions): void {
  for (const route of routes) {
    router[route.method](route.path, async (req: Request, res: Response, next: NextFunction) => {
      try {
        const auth = route.auth ?? 'key';
        let principal: Principal | undefined;
        if (auth === 'key') {
          principal = await options.authenticate(req);
          res.locals.principal = principal;
          await options.rateLimit(principal, res);
          if (route.scope && !principal.key.scopes.includes(route.scope)) {
            throw new ApiError('insufficient_scope', `This endpoint requires the ${route.scope} scope.`);
          }
        } else if (auth === 'admin') {
          options.requireAdmin(req);
        }
        const { request = {} } = route;
        const params = request.params ? parseOrThrow(request.params, req.params, 'path') : req.params;
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
        for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
        const status = result.status ?? 200;
        if (result.raw) {
          res.status(status).type(result.raw.contentType).send(result.raw.body);
          return;
        }
        const payload: Record<string, unknown> = { data: result.data };
        if (result.pagination !== undefined) payload.pagination = result.pagination;
        res.status(status).json(payload);
      } catch (err) {
        next(err);
      }
    });
  }
}

import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Scope } from '../domain/scopes.js';
import type { Principal } from '../application/key-resolver.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who may call a route: a partner API key (default), nobody (public), or the operations token. */
export type RouteAuth = 'key' | 'public' | 'admin';

export interface RouteResult {
  status?: number;
  data?: unknown;
  pagination?: unknown;
  headers?: Record<string, string>;
  /** Raw answer (HTML pages, or an already serialised JSON envelope); sent as is. */
  raw?: { contentType: string; body: string | Buffer };
}

export interface HandlerContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  headers: Record<string, string | undefined>;
  /** Present on `auth: 'key'` routes. */
  principal: Principal;
  /** The service's own id of this request (always generated). */
  requestId: string;
  /** The caller's own `X-Request-Id`, when it sent a safe one. */
  clientRequestId: string | undefined;
  req: Request;
  res: Response;
}

export interface ResponseSpec {
  description: string;
  /** Schema of `data`; omitted for raw answers. */
  data?: z.ZodType;
  pagination?: z.ZodType;
  headers?: Record<string, { description: string; schema: z.ZodType; required?: boolean }>;
  contentType?: string;
}

/**
 * Whether unknown query parameters are refused on a route with no query schema of its own: on the
 * APIs (key and admin routes), so a typo never passes silently (docs/api.md); not on public pages
 * (probes, the reference, the checkout), where browsers and balancers add their own, nor on a
 * route that says `unknownQuery: 'ignore'`.
 */
export function refusesUnknownQuery(route: RouteSpec): boolean {
  return (route.auth ?? 'key') !== 'public' && route.unknownQuery !== 'ignore';
}

// Route lists mix routes of different parameter types; `any` here is what lets them share one array.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface RouteSpec<P = any, Q = any, B = any> {
  method: HttpMethod;
  /** Express-style path relative to the mount point, e.g. `/stores/:store_id`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth?: RouteAuth;
  scope?: Scope;
  /** Sandbox keys only: a live key is refused (403 sandbox_only) before anything is looked up. */
  sandboxOnly?: boolean;
  request?: {
    params?: z.ZodType<P>;
    query?: z.ZodType<Q>;
    body?: z.ZodType<B>;
    /** Body may be omitted entirely (e.g. POST /cancel with no reason). */
    bodyOptional?: boolean;
    headers?: z.ZodObject;
  };
  responses: Record<number, ResponseSpec>;
  /** Error codes this route can answer with besides the common ones; used for the OpenAPI document. */
  errors?: number[];
  /**
   * 'ignore': query parameters are ignored on a key or admin route without a query schema, where the
   * spec lists the answers and no 400 (ping), or tools fetch it (a scrape, a document).
   */
  unknownQuery?: 'ignore';
  /** Answers without a store (liveness, the API's own document): never 503, so the document lists none. */
  storeless?: boolean;
  /**
   * Served but in neither OpenAPI document: a catch-all that only refuses what the documented routes
   * beside it do not match (the operations API's unknown actions: 400, as they always were).
   */
  undocumented?: boolean;
  /**
   * Runs after authentication, the rate limit, the scope and the path, query and header checks, and
   * before the body is validated; an answer it returns is the route's (no body validation, no
   * handler). For answers that need no second validation of a body already validated: an
   * idempotent retry. Undefined: the request goes on as usual.
   */
  beforeBody?: (ctx: Omit<HandlerContext<P, Q, unknown>, 'body'>) => Promise<RouteResult | undefined>;
  handler: (ctx: HandlerContext<P, Q, B>) => Promise<RouteResult> | RouteResult;
}

export function defineRoute<P, Q, B>(spec: RouteSpec<P, Q, B>): RouteSpec<P, Q, B> {
  return spec;
}

import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from './zod.js';
import { ErrorBody, envelope } from '../schemas/common.js';
import { refusesUnknownQuery, type RouteSpec } from '../route.js';
import { applyExamples } from './examples.js';
import { responseLinks } from './links.js';
import { pairPointParameters } from './paired-query.js';
import { registerWebhooks } from './webhooks-section.js';

/** Who a document is for: partners (the public API) or the service's operators. */
export type Audience = 'partner' | 'operator';

/** Paths only operators use: the operations API, metrics and the built-in provider's payment pages. */
export const isOperatorPath = (path: string): boolean => /^\/(internal|checkout|metrics)(\/|$)/.test(path);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid parameter or body (validation_error).',
  401: 'Missing or invalid API key (missing_api_key, invalid_api_key).',
  403: 'The key lacks the scope this endpoint requires (insufficient_scope), or is a live key on a sandbox endpoint (sandbox_only).',
  404: 'Unknown resource.',
  405: 'Method not allowed.',
  409: 'Conflict with the current state.',
  413: 'Body too large (payload_too_large).',
  415: 'Body not application/json (unsupported_media_type).',
  422: 'The request matches this document, but a rule it cannot state refused it (a business rule, the catalog, the store currency).',
  429: 'Rate limit exceeded, or too many failed authentications from this address (rate_limited); see Retry-After.',
  500: 'Internal error (internal_error); retry.',
  503: 'Starting or shutting down (service_unavailable), or the storage is full or failing (storage_unavailable); see Retry-After.',
};

const header = (description: string, schema: z.ZodType = z.string()) => ({ description, schema, required: true });
const requestIdHeader: Record<string, HeaderSpec> = {
  'X-Request-Id': header("The service's own id of this request; quote it to support."),
  'X-Client-Request-Id': {
    description: 'The X-Request-Id the caller sent, when it was 8-64 characters of A-Z a-z 0-9 . _ : -',
    schema: z.string(),
  },
};
const rateLimitHeaders = {
  'RateLimit-Limit': header('Requests allowed per minute for this key.', z.string().regex(/^\d+$/)),
  'RateLimit-Remaining': header('Requests left in the current window.', z.string().regex(/^\d+$/)),
  'RateLimit-Reset': header('Seconds until the window resets.', z.string().regex(/^\d+$/)),
};

/** `/stores/:store_id` -> `/stores/{store_id}` */
export const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function errorCodesOf(route: RouteSpec): number[] {
  // 503 storage_unavailable: any route that reads or writes a store may find it full or failing.
  const codes = new Set<number>([500, ...(route.storeless ? [] : [503]), ...(route.errors ?? [])]);
  const r = route.request ?? {};
  if (r.params || r.query || r.body || r.headers || refusesUnknownQuery(route)) codes.add(400);
  if (r.body) [413, 415].forEach((c) => codes.add(c));
  if ((route.auth ?? 'key') !== 'public') codes.add(401);
  if (route.scope || route.sandboxOnly) codes.add(403);
  // The operations API answers 404 not_found on every route while ADMIN_TOKEN is unset.
  if (route.auth === 'admin') codes.add(404);
  // key: the key's budget; admin: too many failed authentications from the address (both: rate_limited).
  if ((route.auth ?? 'key') !== 'public') codes.add(429);
  return [...codes].sort();
}

/**
 * The OpenAPI 3.1 document of the routes one audience uses, with each operation's examples
 * (./examples.ts); the partner document also describes the webhooks the service sends.
 */
export function buildOpenApiDocument(
  routes: RouteSpec[],
  options: { audience?: Audience; serverUrl?: string } = {},
): Record<string, unknown> {
  const { audience = 'partner', serverUrl = '/' } = options;
  const registry = new OpenAPIRegistry();
  registry.register('Error', ErrorBody);
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key: `svc_live_…` for live, `svc_test_…` for sandbox.',
  });
  registry.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'ADMIN_TOKEN.',
  });

  if (audience === 'partner') registerWebhooks(registry);

  for (const route of routes.filter((r) => !r.undocumented && isOperatorPath(r.path) === (audience === 'operator'))) {
    const auth = route.auth ?? 'key';
    const limited = auth === 'key';
    const responses: Record<string, ResponseConfig> = {};
    for (const [status, spec] of Object.entries(route.responses)) {
      const headers = { ...requestIdHeader, ...(limited ? rateLimitHeaders : {}), ...(spec.headers ?? {}) };
      const content = spec.data
        ? { 'application/json': { schema: envelope(spec.data, spec.pagination) } }
        : spec.contentType
          ? {
              [spec.contentType]: {
                schema: spec.contentType === 'application/json' ? z.record(z.string(), z.unknown()) : z.string(),
              },
            }
          : undefined;
      responses[status] = {
        description: spec.description,
        headers: z.object(mapHeaders(headers)),
        ...(content ? { content } : {}),
        ...responseLinks(route.operationId, status),
      };
    }
    for (const status of errorCodesOf(route)) {
      // Only X-Request-Id is promised on errors: some (malformed JSON, 401) happen before the rate limiter.
      const headers: Record<string, HeaderSpec> = { ...requestIdHeader };
      if (status === 429)
        headers['Retry-After'] = header('Seconds to wait before retrying.', z.string().regex(/^\d+$/));
      // Always with storage_unavailable; /readyz's service_unavailable (starting, stopping) has none.
      if (status === 503)
        headers['Retry-After'] = {
          description: 'Seconds to wait before retrying (always sent with storage_unavailable).',
          schema: z.string().regex(/^\d+$/),
        };
      responses[String(status)] ??= {
        description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
        headers: z.object(mapHeaders(headers)),
        content: { 'application/json': { schema: ErrorBody } },
      };
    }
    const r = route.request ?? {};
    registry.registerPath({
      method: route.method,
      path: toOpenApiPath(route.path),
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags,
      security: auth === 'public' ? [] : auth === 'admin' ? [{ adminToken: [] }] : [{ apiKey: [] }],
      request: {
        ...(r.params ? { params: r.params as z.ZodObject } : {}),
        ...(r.query ? { query: r.query as z.ZodObject } : {}),
        ...(r.headers ? { headers: r.headers } : {}),
        ...(r.body ? { body: { required: !r.bodyOptional, content: { 'application/json': { schema: r.body } } } } : {}),
      },
      responses,
      ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    });
  }

  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info:
      audience === 'partner'
        ? {
            title: 'Partner Ordering API',
            version: '1.0.0',
            description:
              'Browse stores, quote delivery, place, pay for and track orders, and receive signed webhooks. ' +
              'The operations API has its own document at /internal/openapi.json.\n\n' +
              'Examples: the catalog ones and `POST /v1/orders` work as sent with a sandbox key on a fresh start ' +
              '(give each new order its own `Idempotency-Key`: sent again, the example answers the order it placed ' +
              'first). Elsewhere an order, delivery or event id, a webhook URL and a `since` time show what one looks ' +
              'like: put in your own (the `id` of your order, your public HTTPS receiver, a time of the last 30 days).',
          }
        : {
            title: 'Partner Ordering API: operations',
            version: '1.0.0',
            description:
              "The operators' API (ADMIN_TOKEN) and the built-in payment provider's checkout pages. " +
              'Partners use /v1/openapi.json.',
          },
    servers: [{ url: serverUrl }],
  }) as unknown as Record<string, unknown>;
  return applyExamples(pairPointParameters(document));
}

type HeaderSpec = { description: string; schema: z.ZodType; required?: boolean };

function mapHeaders(headers: Record<string, HeaderSpec>) {
  return Object.fromEntries(
    Object.entries(headers).map(([name, h]) => [
      name,
      (h.required ? h.schema : h.schema.optional()).openapi({ description: h.description }),
    ]),
  );
}

import { z } from '../openapi/zod.js';
import { defineRoute, type RouteSpec } from '../route.js';
import { REFERENCE_CSP, REFERENCE_HTML, REFERENCE_INIT_SCRIPT, referenceBundle } from '../openapi/reference-page.js';
import { ApiError } from '../../domain/errors.js';
import { sha256Hex } from '../../shared/ids.js';

/** The files the reference page loads, each with an ETag from its content (computed on first use). */
const ASSETS: Record<string, () => { body: string | Buffer; etag: string }> = {
  'api-reference.js': once(() => referenceBundle()),
  'init.js': once(() => REFERENCE_INIT_SCRIPT),
};

function once(read: () => string | Buffer): () => { body: string | Buffer; etag: string } {
  let asset: { body: string | Buffer; etag: string } | undefined;
  return () => {
    if (!asset) {
      const body = read();
      asset = { body, etag: `"${sha256Hex(body).slice(0, 32)}"` };
    }
    return asset;
  };
}

/**
 * The OpenAPI documents generated from every route's schemas (partners' and operators'), and the
 * API reference page with the files it loads.
 */
export function openApiRoutes(
  document: () => Record<string, unknown>,
  internalDocument: () => Record<string, unknown>,
): RouteSpec[] {
  const json = (doc: Record<string, unknown>) => ({
    raw: { contentType: 'application/json', body: JSON.stringify(doc) },
  });
  return [
    defineRoute({
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This API as an OpenAPI 3.1 document',
      description: 'Every partner operation with request and response examples, and the webhooks the service sends.',
      tags: ['Operations'],
      auth: 'public',
      storeless: true,
      responses: { 200: { description: 'The OpenAPI document.', contentType: 'application/json' } },
      handler: () => json(document()),
    }),
    defineRoute({
      method: 'get',
      path: '/internal/openapi.json',
      operationId: 'getInternalOpenApiDocument',
      summary: 'The operations API as an OpenAPI 3.1 document',
      description: 'The /internal operations and the checkout pages of the built-in payment provider.',
      tags: ['Operations'],
      auth: 'admin',
      storeless: true,
      unknownQuery: 'ignore',
      responses: { 200: { description: 'The OpenAPI document.', contentType: 'application/json' } },
      handler: () => json(internalDocument()),
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      operationId: 'getApiReference',
      summary: 'Interactive API reference (try requests with a sandbox key)',
      tags: ['Operations'],
      auth: 'public',
      storeless: true,
      responses: { 200: { description: 'HTML page.', contentType: 'text/html' } },
      handler: () => ({
        headers: { 'Content-Security-Policy': REFERENCE_CSP, 'Cache-Control': 'no-cache' },
        raw: { contentType: 'text/html; charset=utf-8', body: REFERENCE_HTML },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs/assets/:file',
      operationId: 'getApiReferenceAsset',
      summary: 'A script of the API reference page',
      tags: ['Operations'],
      auth: 'public',
      storeless: true,
      description:
        'The files /docs loads: `api-reference.js` and `init.js`; any other name is 404. Revalidated on every use (ETag), so a new version of the service is picked up at once and an unchanged file answers 304.',
      request: {
        params: z.object({ file: z.string().openapi({ description: 'api-reference.js or init.js.' }) }),
      },
      responses: {
        200: {
          description: 'JavaScript.',
          contentType: 'text/javascript',
          headers: {
            ETag: { description: 'Send it back as If-None-Match to get 304 while it holds.', schema: z.string() },
          },
        },
        304: { description: 'Not modified: the If-None-Match ETag is the current one.' },
      },
      errors: [404],
      handler: ({ params }) => {
        // A lookup in a fixed table, never a path: nothing else under node_modules is reachable.
        const asset = Object.hasOwn(ASSETS, params.file) ? ASSETS[params.file]!() : undefined;
        if (!asset) throw new ApiError('not_found', 'The reference page has no such file.', { param: 'file' });
        return {
          // Express answers 304 itself when If-None-Match matches the ETag.
          headers: { 'Cache-Control': 'no-cache', ETag: asset.etag },
          raw: { contentType: 'text/javascript; charset=utf-8', body: asset.body },
        };
      },
    }),
  ];
}

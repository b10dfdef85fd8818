import { defineRoute, type RouteSpec } from '../route.js';
import { renderReference } from '../openapi/reference-page.js';

/** Serves the OpenAPI document generated from every route's schemas, and a readable reference page. */
export function openApiRoutes(document: () => Record<string, unknown>): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This API as an OpenAPI 3.1 document',
      tags: ['Operations'],
      auth: 'public',
      storeless: true,
      responses: { 200: { description: 'The OpenAPI document.', contentType: 'application/json' } },
      handler: () => ({ raw: { contentType: 'application/json', body: JSON.stringify(document()) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      operationId: 'getApiReference',
      summary: 'Human-readable API reference',
      tags: ['Operations'],
      auth: 'public',
      storeless: true,
      responses: { 200: { description: 'HTML page.', contentType: 'text/html' } },
      handler: () => ({ raw: { contentType: 'text/html; charset=utf-8', body: renderReference(document()) } }),
    }),
  ];
}

import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import { toCategory } from '../presenters/catalog.js';
import { SearchBodyWriter } from '../presenters/search-body.js';
import { CategorySchema, NoQuery, SearchQuery, SearchResultSchema } from '../schemas/catalog.js';
import type { CatalogDeps } from './catalog-deps.js';

const TAGS = ['Catalog'];

export function discoveryRoutes({ catalog, clock }: CatalogDeps) {
  const searchBodies = new SearchBodyWriter();
  return [
    defineRoute({
      method: 'get',
      path: '/v1/search',
      operationId: 'search',
      summary: 'Search stores and items by name (English or Arabic)',
      description:
        'Ranking: exact name, then name prefix, then word prefix, then substring; ties nearest first, then by name. Sold-out items come after available ones of the same match quality. With lat and lng, only stores (and their items) that deliver there. `limit` applies to each list.',
      tags: TAGS,
      scope: 'catalog:read',
      request: { query: SearchQuery },
      responses: { 200: { description: 'Matching stores and items.', data: SearchResultSchema } },
      handler: ({ query }) => {
        const index = catalog.current();
        const at = clock.now();
        const point =
          query.lat !== undefined && query.lng !== undefined ? { lat: query.lat, lng: query.lng } : undefined;
        const result = index.search({ q: query.q, point, limit: query.limit }, at);
        // Written as text with each item's JSON reused (see SearchBodyWriter); the same bytes and headers as res.json.
        return {
          raw: { contentType: 'application/json', body: searchBodies.body(result, (store) => index.status(store, at)) },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/categories',
      operationId: 'listCategories',
      summary: 'Top-level categories (cuisines and departments)',
      description: "A store's `category_ids` refer to these.",
      tags: TAGS,
      scope: 'catalog:read',
      request: { query: NoQuery },
      responses: { 200: { description: 'Every category.', data: z.array(CategorySchema) } },
      handler: () => ({ data: catalog.current().categories.map(toCategory) }),
    }),
  ];
}

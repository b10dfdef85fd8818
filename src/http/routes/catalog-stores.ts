import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import { toItem, toQuote, toStore, toStoreBrief } from '../presenters/catalog.js';
import { MenuBodyCache } from '../presenters/menu-body-cache.js';
import {
  DeliveryQuoteSchema,
  ItemParams,
  ItemSchema,
  MenuSchema,
  NoQuery,
  Pagination,
  QuoteQuery,
  StoreBriefSchema,
  StoreListQuery,
  StoreParams,
  StoreSchema,
} from '../schemas/catalog.js';
import type { CatalogDeps } from './catalog-deps.js';
import { extend } from '../../shared/objects.js';

const TAGS = ['Catalog'];

export function storeRoutes({ catalog, clock, quotes }: CatalogDeps) {
  const menus = new MenuBodyCache();
  return [
    defineRoute({
      method: 'get',
      path: '/v1/stores',
      operationId: 'listStores',
      summary: 'List stores, filtered and paginated',
      description:
        'With lat and lng: only stores that deliver to that point, nearest first, each with distance_m, delivery_fee and estimated_minutes. With q: best name match first (exact, prefix, word prefix, substring). A page past the end is empty with has_more false.',
      tags: TAGS,
      scope: 'catalog:read',
      request: { query: StoreListQuery },
      responses: {
        200: { description: 'One page of stores.', data: z.array(StoreBriefSchema), pagination: Pagination },
      },
      handler: ({ query }) => {
        const point =
          query.lat !== undefined && query.lng !== undefined ? { lat: query.lat, lng: query.lng } : undefined;
        const page = catalog
          .current()
          .listStores(
            { q: query.q, vertical: query.vertical, status: query.status, point, page: query.page, limit: query.limit },
            clock.now(),
          );
        return {
          data: page.data.map(toStoreBrief),
          pagination: { page: page.page, limit: page.limit, total: page.total, has_more: page.has_more },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/stores/:store_id',
      operationId: 'getStore',
      summary: 'A store with its opening hours, delivery zone and fees',
      tags: TAGS,
      scope: 'catalog:read',
      request: { params: StoreParams, query: NoQuery },
      responses: { 200: { description: 'The store.', data: StoreSchema } },
      errors: [404],
      handler: ({ params }) => {
        const index = catalog.current();
        const store = index.requireStore(params.store_id);
        const at = clock.now();
        return { data: toStore(store, index.status(store, at), at) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/stores/:store_id/menu',
      operationId: 'getMenu',
      summary: "A store's menu: categories with items and modifier groups",
      description: 'Cache it 2 to 5 minutes; do not fetch it more than once a minute.',
      tags: TAGS,
      scope: 'catalog:read',
      request: { params: StoreParams, query: NoQuery },
      responses: {
        200: {
          description: 'The menu; gzipped when the request accepts gzip.',
          data: MenuSchema,
          headers: {
            'Content-Encoding': {
              description: '`gzip` when the request accepted it; absent otherwise.',
              schema: z.literal('gzip'),
            },
            Vary: {
              description: '`Accept-Encoding`: the answer depends on it.',
              schema: z.literal('Accept-Encoding'),
              required: true,
            },
          },
        },
      },
      errors: [404],
      handler: ({ params, req }) => {
        const index = catalog.current();
        const store = index.requireStore(params.store_id);
        const status = index.status(store, clock.now());
        // The envelope serialised (and gzipped) once per catalog and status (see MenuBodyCache); same
        // bytes and headers as res.json. Gzip only when asked for: the menu is the one large answer.
        const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
        const headers: Record<string, string> = gzip
          ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' }
          : { Vary: 'Accept-Encoding' };
        const body = gzip ? menus.gzipped(index, store, status) : menus.body(index, store, status);
        return { headers, raw: { contentType: 'application/json', body } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/stores/:store_id/items/:item_id',
      operationId: 'getItem',
      summary: 'One item of a store, with its modifier groups',
      tags: TAGS,
      scope: 'catalog:read',
      request: { params: ItemParams, query: NoQuery },
      responses: { 200: { description: 'The item.', data: ItemSchema } },
      errors: [404],
      handler: ({ params }) => {
        const index = catalog.current();
        const item = index.requireItem(params.store_id, params.item_id);
        const store = index.requireStore(params.store_id);
        const category = store.menu.categories.find((c) => c.items.includes(item))!;
        return { data: toItem(item, category.id, store.currency) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/stores/:store_id/delivery-quote',
      operationId: 'getDeliveryQuote',
      summary: 'Whether a point is in the delivery area, the distance, fee and estimated time',
      description:
        'Out of zone is an answer (in_zone false, delivery_fee and estimated_minutes null), not an error. Call it before creating an order. In zone, the quote has an `id` that holds for 10 minutes (`expires_at`): pass it as `quote_id` when placing a delivery order for this store, in this environment, within 100 m of this point, and the order is charged this delivery_fee and starts from this estimate.',
      tags: TAGS,
      scope: 'catalog:read',
      request: { params: StoreParams, query: QuoteQuery },
      responses: { 200: { description: 'The quote.', data: DeliveryQuoteSchema } },
      errors: [404],
      handler: ({ principal, params, query }) => {
        const point = { lat: query.lat, lng: query.lng };
        const quote = catalog.current().deliveryQuote(params.store_id, point, clock.now());
        const holder = { partnerId: principal.partner.id, environment: principal.key.environment };
        return { data: extend(toQuote(quote, point), quotes.issue(holder, quote, point)) };
      },
    }),
  ];
}

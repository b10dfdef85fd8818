import type { CatalogDeps } from './catalog-deps.js';
import { discoveryRoutes } from './catalog-discovery.js';
import { offerRoutes } from './catalog-offers.js';
import { storeRoutes } from './catalog-stores.js';

/** Stores, menus, items, delivery quotes, search, categories, offers and promo-code checks. */
export function catalogRoutes(deps: CatalogDeps) {
  return [...storeRoutes(deps), ...discoveryRoutes(deps), ...offerRoutes(deps)];
}

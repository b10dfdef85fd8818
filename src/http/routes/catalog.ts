import type { CatalogService } from '../../application/catalog-service.js';
import type { Clock } from '../../shared/clock.js';
import { discoveryRoutes } from './catalog-discovery.js';
import { offerRoutes } from './catalog-offers.js';
import { storeRoutes } from './catalog-stores.js';

export interface CatalogDeps {
  /** Read at every request: an import swaps the index in between requests. */
  catalog: Pick<CatalogService, 'current'>;
  clock: Clock;
}

/** Stores, menus, items, delivery quotes, search, categories, offers and promo-code checks. */
export function catalogRoutes(deps: CatalogDeps) {
  return [...storeRoutes(deps), ...discoveryRoutes(deps), ...offerRoutes(deps)];
}

import type { CatalogService } from '../../application/catalog-service.js';
import type { Clock } from '../../shared/clock.js';

/** What the catalog routes need, in its own module: catalog.ts and the route modules it gathers both import it. */
export interface CatalogDeps {
  /** Read at every request: an import swaps the index in between requests. */
  catalog: Pick<CatalogService, 'current'>;
  clock: Clock;
}

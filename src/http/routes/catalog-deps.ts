import type { CatalogService } from '../../application/catalog-service.js';
import type { Clock } from '../../shared/clock.js';
import type { DeliveryQuotes } from '../../application/orders/quotes.js';

/** What the catalog routes need, in its own module: catalog.ts and the route modules it gathers both import it. */
export interface CatalogDeps {
  /** Read at every request: an import swaps the index in between requests. */
  catalog: Pick<CatalogService, 'current'>;
  clock: Clock;
  /** Signs delivery quotes so an order can hold them (quote_id). */
  quotes: DeliveryQuotes;
}

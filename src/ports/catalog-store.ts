import type { Catalog } from '../domain/catalog/model.js';
import { sha256Hex } from '../shared/ids.js';

/**
 * Durable home of the one current catalog. Reads are served from an in-memory CatalogIndex;
 * this port is touched at start, on import, and by the cheap `version()` poll with which a
 * running server notices an import made by another process (the CLI) within seconds.
 */
export interface CatalogStore {
  /** The current catalog, or null when none was ever saved. Throws if the stored one is invalid. */
  load(): Promise<Catalog | null>;
  /**
   * Atomically replaces the current catalog: readers see the old one or the new one, never a
   * mix. The caller validates first (validateCatalog). Returns the new version.
   */
  save(catalog: Catalog): Promise<string>;
  /** Version of the current catalog (content hash), or null when none; cheap enough to poll. */
  version(): Promise<string | null>;
  close(): Promise<void>;
}

/** The stored text of a catalog and its version: the SHA-256 of that text, so equal content, equal version. */
export function serialiseCatalog(catalog: Catalog): { json: string; version: string } {
  const json = JSON.stringify(catalog);
  return { json, version: sha256Hex(json) };
}

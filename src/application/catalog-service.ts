import type { CatalogStore } from '../ports/catalog-store.js';
import { CatalogIndex } from '../domain/catalog/catalog-index.js';
import { validateCatalog, type CatalogProblem } from '../domain/catalog/validate.js';
import type { Logger } from '../shared/logger.js';
import { loadDemoCatalog } from '../catalog-data/demo.js';

export class CatalogImportError extends Error {
  constructor(readonly problems: CatalogProblem[]) {
    super(`the catalog has ${problems.length} problem(s)`);
  }
}

/** The demo catalog shipped with the service, which a first start with no catalog stores. */
export function demoCatalogIndex(): CatalogIndex {
  return new CatalogIndex(loadDemoCatalog());
}

/**
 * Serves the current catalog from memory. The durable copy is in the CatalogStore; a cheap version
 * poll picks up imports made by other processes (the CLI) within `pollMs`.
 */
export class CatalogService {
  private index: CatalogIndex | undefined;
  private version: string | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: { store: CatalogStore; logger?: Logger; pollMs?: number }) {}

  /** Loads the stored catalog, seeding the demo catalog on first start. */
  async start(options: { poll?: boolean } = {}): Promise<void> {
    const catalog = await this.deps.store.load();
    if (!catalog) {
      await this.import(loadDemoCatalog());
      this.deps.logger?.info({ version: this.index!.version }, 'demo catalog loaded on first start');
    } else {
      this.index = new CatalogIndex(catalog);
      this.version = await this.deps.store.version();
    }
    if (options.poll !== false) {
      this.timer = setInterval(
        () => void this.refresh().catch((err) => this.deps.logger?.error({ err }, 'catalog refresh failed')),
        this.deps.pollMs ?? 2000,
      );
      this.timer.unref();
    }
  }

  /** The stored catalog, or (`demo`) the one a first start would store; stores nothing (read-only views). */
  async peek(): Promise<{ index: CatalogIndex; demo: boolean }> {
    const catalog = await this.deps.store.load();
    return catalog ? { index: new CatalogIndex(catalog), demo: false } : { index: demoCatalogIndex(), demo: true };
  }

  current(): CatalogIndex {
    if (!this.index) throw new Error('catalog not loaded');
    return this.index;
  }

  /** Validates everything first: a bad document changes nothing and names every problem's JSON path. */
  async import(json: unknown): Promise<CatalogIndex> {
    const result = validateCatalog(json);
    if (!result.ok) throw new CatalogImportError(result.problems);
    const index = new CatalogIndex(result.catalog);
    this.version = await this.deps.store.save(result.catalog);
    this.index = index;
    return index;
  }

  /** Reloads when another process saved a different catalog. */
  async refresh(): Promise<boolean> {
    const version = await this.deps.store.version();
    if (version === null || version === this.version) return false;
    const catalog = await this.deps.store.load();
    if (!catalog) return false;
    this.index = new CatalogIndex(catalog);
    this.version = version;
    this.deps.logger?.info({ version: catalog.version }, 'catalog reloaded');
    return true;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

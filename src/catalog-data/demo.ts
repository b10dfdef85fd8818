/** The demo catalog shipped in the repository, loaded on a first start with no catalog. */
import { readFileSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Catalog } from '../domain/catalog/model.js';
import { parseCatalog } from '../domain/catalog/validate.js';

const FILE = 'demo-catalog.json';

/**
 * Where the JSON lives: next to this module when running from src (tests), or back in
 * src/catalog-data when running the compiled module from dist/src/catalog-data (tsc does not
 * copy the file).
 */
export function demoCatalogSourcePath(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const fromDist = here.split(sep).includes('dist');
  return fileURLToPath(new URL(fromDist ? `../../../src/catalog-data/${FILE}` : `./${FILE}`, import.meta.url));
}

/** Reads and validates the demo catalog; throws naming the problems if the file was broken. */
export function loadDemoCatalog(): Catalog {
  return parseCatalog(JSON.parse(readFileSync(demoCatalogSourcePath(), 'utf8')));
}

/**
 * Writes demo-catalog.json from buildDemoCatalog(), refusing to write an invalid catalog.
 * Run after a build: `node dist/src/catalog-data/generate.js [out-file]`
 * (default: src/catalog-data/demo-catalog.json in the repository).
 */
import { writeFileSync } from 'node:fs';
import { validateCatalog } from '../domain/catalog/validate.js';
import { demoCatalogText } from './build.js';
import { demoCatalogSourcePath } from './demo.js';

function main(out: string): void {
  const text = demoCatalogText();
  const result = validateCatalog(JSON.parse(text));
  if (!result.ok) {
    for (const p of result.problems) console.error(`${p.path}: ${p.message}`);
    process.exit(1);
  }
  writeFileSync(out, text);
  console.log(`wrote ${out}: ${result.catalog.stores.length} stores, ${result.catalog.offers.length} offers`);
}

main(process.argv[2] ?? demoCatalogSourcePath());

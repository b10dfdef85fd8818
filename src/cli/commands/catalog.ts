import fs from 'node:fs';
import type { Command } from 'commander';
import { CatalogImportError, CatalogService, demoCatalogIndex } from '../../application/catalog-service.js';
import type { CatalogIndex, CatalogStats } from '../../domain/catalog/catalog-index.js';
import { systemClock } from '../../shared/clock.js';
import { CliError, printJson, withStores } from '../context.js';

export function registerCatalogCommands(program: Command): void {
  const catalog = program.command('catalog').description('Import, export and summarise the store catalog');

  catalog
    .command('import')
    .description('Validate a catalog file and make it the current catalog; a bad file changes nothing')
    .argument('<file>', 'catalog JSON file (format: docs/catalog.md)')
    .option('--json', 'print the stats as one JSON object')
    .addHelpText(
      'after',
      '\nEvery problem is printed to stderr as "<JSON path>: <message>" and the command exits 1.\nA running server serves the new catalog within a few seconds.',
    )
    .action(async (file: string, opts: { json?: boolean }) => {
      const json = readJson(file);
      await withStores(async (stores) => {
        // No start(): on an empty store it would seed the demo catalog before the file is even checked.
        const service = new CatalogService({ store: stores.catalog });
        try {
          const index = await service.import(json);
          printStats(index.stats(systemClock.now()), opts.json, 'Imported');
        } catch (err) {
          if (!(err instanceof CatalogImportError)) throw err;
          for (const p of err.problems) process.stderr.write(`${p.path}: ${p.message}\n`);
          throw new CliError(
            `${file} was not imported: ${err.problems.length} problem(s); the current catalog is unchanged`,
          );
        }
      });
    });

  catalog
    .command('export')
    .description('Write the current catalog as JSON (an import file) to a file or stdout')
    .argument('[file]', 'output file (default: stdout)')
    .action(async (file: string | undefined) => {
      const text = await withCatalog((index) => JSON.stringify(index.catalog, null, 2) + '\n');
      if (file === undefined) process.stdout.write(text);
      else {
        try {
          fs.writeFileSync(file, text);
        } catch (err) {
          throw new CliError(`cannot write ${file}: ${(err as Error).message}`);
        }
        process.stderr.write(`Wrote ${file}\n`);
      }
    });

  catalog
    .command('stats')
    .description('Summarise the current catalog: stores by vertical and city, items, offers')
    .option('--json', 'print one JSON object')
    .action(async (opts: { json?: boolean }) => {
      const stats = await withCatalog((index) => index.stats(systemClock.now()));
      printStats(stats, opts.json, 'Catalog');
    });
}

/**
 * The stored catalog, or the demo one a first start would load (said on stderr), read without
 * storing anything. A directory with no data (a fresh or mistyped DATA_DIR) is not opened, so not
 * made either.
 */
function withCatalog<T>(fn: (index: CatalogIndex) => T): Promise<T> {
  const demo = (index: CatalogIndex, where: string) => {
    process.stderr.write(`${where}: this is the demo catalog a first start would load (nothing was stored).\n`);
    return fn(index);
  };
  return withStores(
    async (stores) => {
      const { index, demo: none } = await new CatalogService({ store: stores.catalog }).peek();
      return none ? demo(index, 'no catalog is stored yet') : fn(index);
    },
    { whenNoData: (dataDir) => demo(demoCatalogIndex(), `${dataDir} holds no data yet`) },
  );
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function printStats(s: CatalogStats, json: boolean | undefined, heading: string): void {
  if (json) return printJson(s);
  const list = (r: Record<string, number>) =>
    Object.entries(r)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  process.stdout.write(
    [
      `${heading} ${s.version}`,
      `  stores:     ${s.stores} (${list(s.stores_by_vertical)})`,
      `  cities:     ${list(s.stores_by_city) || '-'}`,
      `  items:      ${s.items} (${s.sold_out_items} sold out)`,
      `  categories: ${s.categories}`,
      `  offers:     ${s.offers} (${s.active_offers} active now, ${s.promo_codes} with a promo code)`,
    ].join('\n') + '\n',
  );
}

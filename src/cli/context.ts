import { ConfigError, loadConfig, type Config } from '../config.js';
import { openStores, type OpenStoresOptions, type Stores } from '../composition/stores.js';
import { Refusal } from '../shared/refusal.js';

/** Thrown for a user mistake: printed as one line, exit code 1, no stack trace. */
export class CliError extends Error {}

/**
 * Opens the configured stores for one command and always closes them. The stores refuse a data
 * directory as the server does (data-dir.ts), without the server's integrity scan of the files.
 */
export async function withStores<T>(fn: (stores: Stores, config: Config) => Promise<T>, options: Pick<OpenStoresOptions, 'webhookKeyCheck'> = {}): Promise<T> {
  const config = cliConfig();
  let stores: Stores;
  try {
    stores = await openStores(config, { integrityCheck: false, ...options });
  } catch (err) {
    if (err instanceof Refusal) throw new CliError(err.message);
    throw err;
  }
  try {
    return await fn(stores, config);
  } finally {
    await stores.close();
  }
}

/** The configuration from the environment; a bad value is a CliError naming the variable. */
export function cliConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

export function printTable(rows: Array<Record<string, unknown>>): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const cols = Object.keys(rows[0]!);
  const text = (v: unknown) => (Array.isArray(v) ? v.join(',') : v === null || v === undefined ? '-' : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => text(r[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd() + '\n';
  process.stdout.write(line(cols));
  for (const r of rows) process.stdout.write(line(cols.map((c) => text(r[c]))));
}

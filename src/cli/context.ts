import { ConfigError, loadConfig, type Config } from '../config.js';
import { openStores, type Stores } from '../composition/stores.js';

/** Thrown for a user mistake: printed as one line, exit code 1, no stack trace. */
export class CliError extends Error {}

/** Opens the configured stores for one command and always closes them. */
export async function withStores<T>(fn: (stores: Stores, config: Config) => Promise<T>): Promise<T> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
  const stores = await openStores(config);
  try {
    return await fn(stores, config);
  } finally {
    await stores.close();
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

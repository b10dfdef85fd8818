import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { EVENTS_FILE, IdentityRefusal } from '../composition/data-dir.js';
import { openEmbeddedLogAlone, openStores, type OpenStoresOptions, type Stores } from '../composition/stores.js';
import type { EventStore } from '../ports/event-store.js';
import type { ReadModelStore } from '../ports/read-model-store.js';
import { Refusal } from '../shared/refusal.js';

/** Thrown for a user mistake: printed as one line, exit code 1, no stack trace. */
export class CliError extends Error {}

/**
 * Opens the configured stores for one command and always closes them. The stores refuse a data
 * directory as the server does (data-dir.ts), without the server's integrity scan of the files.
 * The webhook secrets key is checked only when `webhookKeyCheck` is set (commands that seal or
 * open signing secrets): a wrong key file must not block revoking a leaked API key.
 */
export async function withStores<T>(
  fn: (stores: Stores, config: Config) => Promise<T>,
  options: Pick<OpenStoresOptions, 'webhookKeyCheck'> = {},
): Promise<T> {
  const config = cliConfig();
  let stores: Stores;
  try {
    stores = await openStores(config, { integrityCheck: false, webhookKeyCheck: false, ...options });
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

/**
 * For read-only diagnostics of the event log: the stores as withStores opens them, or, when the
 * directory is refused for its identity (a lost, foreign or mismatched file) and events.db has
 * content, that log alone, with a one-line warning on stderr. Only the event store opens then:
 * service.db is neither created nor given an id, and the log gets no id, so the refusal stands
 * for the server. `readModels` is there only when the stores opened.
 */
export async function withEventLog<T>(
  fn: (events: EventStore, config: Config, readModels: ReadModelStore | undefined) => Promise<T>,
): Promise<T> {
  const config = cliConfig();
  const eventsFile = path.join(config.dataDir, EVENTS_FILE);
  let stores: Stores;
  try {
    stores = await openStores(config, { integrityCheck: false, webhookKeyCheck: false });
  } catch (err) {
    if (
      !(err instanceof IdentityRefusal) ||
      config.EVENT_STORE !== 'embedded' ||
      (fs.statSync(eventsFile, { throwIfNoEntry: false })?.size ?? 0) === 0
    ) {
      if (err instanceof Refusal) throw new CliError(err.message);
      throw err;
    }
    process.stderr.write(`warning: reading ${eventsFile} alone; the service refuses this directory: ${err.message}\n`);
    const events = openEmbeddedLogAlone(config);
    try {
      return await fn(events, config, undefined);
    } finally {
      await events.close();
    }
  }
  try {
    return await fn(stores.events, config, stores.readModels);
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
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd() + '\n';
  process.stdout.write(line(cols));
  for (const r of rows) process.stdout.write(line(cols.map((c) => text(r[c]))));
}

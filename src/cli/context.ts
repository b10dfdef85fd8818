import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { EVENTS_FILE, IdentityRefusal, SERVICE_FILE } from '../composition/data-dir.js';
import { dataDirIdentity, runningServices, type RunningService } from '../composition/service-registry.js';
import { openEmbeddedLogAlone, openStores, type OpenStoresOptions, type Stores } from '../composition/stores.js';
import { StreamAccessDeniedError, type EventStore } from '../ports/event-store.js';
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
  options: Pick<OpenStoresOptions, 'webhookKeyCheck'> & {
    serviceStopped?: boolean;
    /** Only reads partners and keys: refused where the directory holds no data (checkSomethingToRead). */
    readsPartners?: boolean;
    /** Only reads, with an answer for a directory that holds no data: given instead of opening (making) it. */
    whenNoData?: (dataDir: string) => T;
  } = {},
): Promise<T> {
  const { serviceStopped, readsPartners, whenNoData, ...storeOptions } = options;
  const config = cliConfig();
  checkDataDir(config);
  if (config.READ_STORE === 'embedded') {
    if (whenNoData && !holdsData(config)) return whenNoData(config.dataDir);
    if (readsPartners) checkSomethingToRead(config, SERVICE_FILE);
  }
  if (serviceStopped) checkNoServiceRuns(config);
  let stores: Stores;
  try {
    stores = await openStores(config, { integrityCheck: false, webhookKeyCheck: false, ...storeOptions });
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
 * for the server. `readModels` is there only when the stores opened. `serviceUrl`: the service
 * the command compares the log with, checked as checkDataDir says.
 */
export async function withEventLog<T>(
  fn: (events: EventStore, config: Config, readModels: ReadModelStore | undefined) => Promise<T>,
  options: { serviceUrl?: string } = {},
): Promise<T> {
  const config = cliConfig();
  checkDataDir(config, process.env, options.serviceUrl);
  if (config.EVENT_STORE === 'embedded') checkSomethingToRead(config, EVENTS_FILE);
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
      return await refusalsAsCliErrors(() => fn(events, config, undefined));
    } finally {
      await events.close();
    }
  }
  try {
    return await refusalsAsCliErrors(() => fn(stores.events, config, stores.readModels));
  } finally {
    await stores.close();
  }
}

/**
 * A command that only reads refuses a directory with no data at all (a mistyped DATA_DIR), instead
 * of making an empty data directory there and reporting that it holds nothing. One of the two files
 * there with content: the stores' identity check names what was lost (data-dir.ts). An empty file
 * counts as none, as it does for that check.
 */
function checkSomethingToRead(config: Config, file: string): void {
  if (holdsData(config)) return;
  throw new CliError(
    `${config.dataDir} holds no ${file}: no data directory there, so nothing to read (this command makes none). Check DATA_DIR.`,
  );
}

/**
 * A file of the embedded stores configured (events.db, service.db) there with content; anything but
 * a missing file (DATA_DIR is a file, a permission) is the stores' to name.
 */
function holdsData(config: Config): boolean {
  const files = [
    ...(config.EVENT_STORE === 'embedded' ? [EVENTS_FILE] : []),
    ...(config.READ_STORE === 'embedded' ? [SERVICE_FILE] : []),
  ];
  for (const name of files) {
    try {
      if (fs.statSync(path.join(config.dataDir, name)).size > 0) return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return true;
    }
  }
  return false;
}

/** A stream the event store refuses to this service (EventStoreDB's `$` system streams): one line, exit 1. */
async function refusalsAsCliErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw err instanceof StreamAccessDeniedError ? new CliError(err.message) : err;
  }
}

/** The command line as it was typed after `npm run cli --`, quoted where a shell needs it. */
const typedArgs = (): string =>
  process.argv
    .slice(2)
    .map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))
    .join(' ');

const describeService = (s: RunningService): string => `pid ${s.pid}, port ${s.port}`;

/**
 * Says which DATA_DIR the command uses when it was not chosen (the default ./data), and refuses
 * when it is sure that is not the running service's directory (docs/operations.md): writing there
 * would go where the service never looks (a new key answering 401). Sure means one of:
 * - PORT is set and the service listening on it uses another directory;
 * - `serviceUrl` (the service a command reads from) is on this machine, and the service listening
 *   on its port uses another directory;
 * - DATA_DIR is not set, services are running, and none of them uses ./data.
 * Services are those of this user on this machine (service-registry.ts); with none seen, nothing
 * is refused.
 */
export function checkDataDir(config: Config, env: NodeJS.ProcessEnv = process.env, serviceUrl?: string): void {
  if (config.EVENT_STORE !== 'embedded' && config.READ_STORE !== 'embedded') return;
  const mine = dataDirIdentity(config.dataDir);
  const chosen = Boolean(env.DATA_DIR);
  const services = runningServices(env);
  const fix = (dir: string) => `DATA_DIR=${dir} npm run cli -- ${typedArgs()}`;
  if (env.PORT) {
    const onPort = services.find((s) => s.port === config.PORT);
    if (onPort && onPort.data_dir !== mine) {
      throw new CliError(
        `DATA_DIR is ${mine}, but the service on port ${config.PORT} (${describeService(onPort)}) uses ${onPort.data_dir}. ` +
          `Run: ${fix(onPort.data_dir)}  (or set PORT to the port of the service that uses ${mine}).`,
      );
    }
  }
  const urlPort = serviceUrl === undefined ? undefined : localPort(serviceUrl);
  const atUrl = services.find((s) => s.port === urlPort);
  if (atUrl && atUrl.data_dir !== mine) {
    throw new CliError(
      `DATA_DIR is ${mine}, but the service at ${serviceUrl} (${describeService(atUrl)}) uses ${atUrl.data_dir}. ` +
        `Run: ${fix(atUrl.data_dir)}  (or pass --url of the service that uses ${mine}).`,
    );
  }
  if (!chosen) {
    const others = services.filter((s) => s.data_dir !== mine);
    if (others.length > 0 && others.length === services.length) {
      const where = others.map((s) => `${s.data_dir} (${describeService(s)})`).join(', ');
      // With several services, which one is meant is the caller's to say: no command picks one.
      const run =
        others.length === 1
          ? `Run: ${fix(others[0]!.data_dir)}`
          : `Set DATA_DIR to the directory of the service you mean`;
      throw new CliError(
        `DATA_DIR is not set, so this command would use ${mine}, but the running ${others.length === 1 ? 'service uses' : 'services use'} ${where}. ` +
          `${run}  (or, to use ${mine} anyway: ${fix(mine)}).`,
      );
    }
    process.stderr.write(`DATA_DIR: ${mine} (the default; set DATA_DIR to use another directory)\n`);
  }
}

/** The port `url` names when it is a service on this machine (the registry knows only those). */
function localPort(url: string): number | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (!['localhost', '127.0.0.1', '[::1]'].includes(u.hostname)) return undefined;
  return Number(u.port || (u.protocol === 'https:' ? 443 : 80));
}

/**
 * For the commands that rewrite what a running service has read at its start (signing secrets,
 * data directory ids, read models): refuses while a service of this user runs on this DATA_DIR
 * (service-registry.ts), which would go on with what it holds, or serve what was rewritten under it.
 */
export function checkNoServiceRuns(config: Config, env: NodeJS.ProcessEnv = process.env): void {
  if (config.EVENT_STORE !== 'embedded' && config.READ_STORE !== 'embedded') return;
  const mine = dataDirIdentity(config.dataDir);
  const running = runningServices(env).filter((s) => s.data_dir === mine);
  if (running.length > 0) {
    throw new CliError(
      `a service is running on ${mine} (${running.map(describeService).join('; ')}): stop it first, then run ${typedArgs()} again.`,
    );
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
  const text = (v: unknown): string => {
    if (Array.isArray(v)) return v.join(',');
    if (v === null || v === undefined) return '-';
    return typeof v === 'object' ? JSON.stringify(v) : `${v as string | number | boolean | bigint}`;
  };
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => text(r[c]).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd() + '\n';
  process.stdout.write(line(cols));
  for (const r of rows) process.stdout.write(line(cols.map((c) => text(r[c]))));
}

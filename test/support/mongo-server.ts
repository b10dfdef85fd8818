// Real MongoDB wire servers for tests on machines without MongoDB or Docker, fetched by
// .ci/fetch-test-servers.sh into .tools/:
// - mongo-java-server (in-memory backend), started through test/support/mongo-launcher;
// - FerretDB (SQLite backend, files in a temporary directory), a Go binary.
// The global set-up starts each once per run and provides its URL; suites call mongoTestServers()
// (one entry per server, each run or loudly skipped) or, for one server only, requireMongoUrl().
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by global-setup.ts when it started mongo-java-server for this run. */
    mongoJavaServerUrl: string | undefined;
    /** Set by global-setup.ts when it started FerretDB for this run. */
    ferretDbUrl: string | undefined;
  }
}

export interface MongoJavaServer {
  url: string;
  stop(): Promise<void>;
}
/** A started test server (either kind): its URL and how to stop it. */
export type StartedMongoServer = MongoJavaServer;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MONGO_JAVA_SERVER_DIR = path.join(ROOT, '.tools/mongo-java-server');
const LIB = path.join(MONGO_JAVA_SERVER_DIR, 'lib');
const CLASSES = path.join(MONGO_JAVA_SERVER_DIR, 'classes');
const FETCH_HINT = 'run .ci/fetch-test-servers.sh (needs mvn and a JDK 17+)';
export const FERRETDB_DIR = path.join(ROOT, '.tools/ferretdb');
const FERRETDB_BIN = path.join(FERRETDB_DIR, 'ferretdb');
const FERRETDB_HINT = 'run .ci/fetch-test-servers.sh (builds FerretDB; needs go)';

export function isCi(): boolean {
  return process.env.CI === 'true';
}

/** True when the fetch script has put the jars and the compiled launcher in place. */
export function mongoJavaServerInstalled(): boolean {
  return (
    existsSync(path.join(CLASSES, 'MongoLauncher.class')) &&
    existsSync(LIB) &&
    readdirSync(LIB).some((f) => f.startsWith('mongo-java-server-core-'))
  );
}

export async function startMongoJavaServer(
  options: { startTimeoutMs?: number; oplog?: boolean } = {},
): Promise<MongoJavaServer> {
  if (!mongoJavaServerInstalled()) {
    throw new Error(`mongo-java-server is not installed under ${MONGO_JAVA_SERVER_DIR}: ${FETCH_HINT}`);
  }
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  // stdin stays an open pipe: the launcher exits when it closes, so it cannot outlive this process.
  const classpath = `${CLASSES}${path.delimiter}${path.join(LIB, '*')}`;
  const args = ['-cp', classpath, 'MongoLauncher', ...(options.oplog ? ['--oplog'] : [])];
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const port = await new Promise<number>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`mongo-java-server did not start: ${why}\n${stderr.trim()}`));
    };
    const timer = setTimeout(() => fail(`no LISTENING line within ${timeoutMs} ms`), timeoutMs);
    child.once('error', (err) => fail(`${err.message} (is java on the PATH? ${FETCH_HINT})`));
    const onEarlyExit = (code: number | null, signal: string | null) =>
      fail(`launcher exited early (code ${code}, signal ${signal})`);
    child.once('exit', onEarlyExit);
    createInterface({ input: child.stdout }).once('line', (line) => {
      const match = /^LISTENING (\d+)$/.exec(line.trim());
      if (!match?.[1]) return fail(`unexpected output ${JSON.stringify(line)}`);
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      resolve(Number(match[1]));
    });
  });

  return {
    url: `mongodb://127.0.0.1:${port}/`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin.end(); // the launcher's normal way out
      const graceful = await Promise.race([
        exited.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 5_000).unref()),
      ]);
      if (!graceful) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** True when the fetch script has built the pinned FerretDB binary. */
export function ferretDbInstalled(): boolean {
  return existsSync(FERRETDB_BIN) && existsSync(path.join(FERRETDB_DIR, 'version'));
}

/**
 * Starts FerretDB on 127.0.0.1 and a free port, its SQLite files in a fresh temporary directory
 * (removed by stop(); written without fsync), telemetry and the debug HTTP listener off. It runs
 * under a small `sh` that keeps stdin open: when the test process goes (even by kill -9) the pipe
 * closes and the shell stops FerretDB, so it cannot outlive the run.
 */
export async function startFerretDb(options: { startTimeoutMs?: number } = {}): Promise<StartedMongoServer> {
  if (!ferretDbInstalled()) throw new Error(`FerretDB is not built under ${FERRETDB_DIR}: ${FERRETDB_HINT}`);
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const dir = mkdtempSync(path.join(tmpdir(), 'ferretdb-test-'));
  const args = [
    '--handler=sqlite',
    `--sqlite-url=file:${dir}/?_pragma=synchronous(OFF)`, // a throwaway database: no fsync
    `--state-dir=${dir}`,
    '--listen-addr=127.0.0.1:0',
    '--debug-addr=-',
    '--telemetry=disable',
    '--log-level=info', // the "Listening on" line is at info
    '--log-format=text',
  ];
  // When stdin ends (stop(), or this process died), the shell stops FerretDB and removes its files.
  const guard =
    '"$0" "$@" </dev/null & pid=$!; trap \'kill $pid 2>/dev/null; wait $pid; rm -rf "$FERRETDB_TEST_DIR"\' EXIT; cat >/dev/null';
  // Its own process group, so a kill reaches FerretDB as well as the shell.
  const child = spawn('sh', ['-c', guard, FERRETDB_BIN, ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
    detached: true,
    env: { ...process.env, FERRETDB_TEST_DIR: dir },
  });
  const killAll = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  };
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });

  const port = await new Promise<number>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      if (child.pid) killAll();
      cleanUp();
      reject(new Error(`FerretDB did not start: ${why}\n${log.trim()}`));
    };
    const timer = setTimeout(() => fail(`no "Listening on TCP" line within ${timeoutMs} ms`), timeoutMs);
    child.once('error', (err) => fail(`${err.message} (${FERRETDB_HINT})`));
    const onEarlyExit = (code: number | null, signal: string | null) =>
      fail(`exited early (code ${code}, signal ${signal})`);
    child.once('exit', onEarlyExit);
    const lines = createInterface({ input: child.stderr });
    lines.on('line', (line) => {
      log = (log + line + '\n').slice(-4000);
      const match = /Listening on TCP 127\.0\.0\.1:(\d+)/.exec(line);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      resolve(Number(match[1]));
    });
  });

  return {
    url: `mongodb://127.0.0.1:${port}/`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end(); // the guard's way out: it stops FerretDB and waits for it
        const graceful = await Promise.race([
          exited.then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 5_000).unref()),
        ]);
        if (!graceful) {
          killAll();
          await exited;
        }
      }
      cleanUp();
    },
  };
}

/** One MongoDB wire server a suite runs against: its name for labels, and its URL when it is up. */
export interface MongoTestServer {
  name: string;
  url: string | undefined;
}

/**
 * Every MongoDB wire server of this run: MONGODB_URL alone when set (a real MongoDB), else
 * mongo-java-server and FerretDB, each with the URL the global set-up provided (undefined when it
 * was not started).
 */
export function mongoTestServerList(): MongoTestServer[] {
  const fromEnv = process.env.MONGODB_URL?.trim();
  if (fromEnv) return [{ name: 'MongoDB (MONGODB_URL)', url: fromEnv }];
  return [
    { name: 'mongo-java-server', url: inject('mongoJavaServerUrl') || undefined },
    { name: 'FerretDB', url: inject('ferretDbUrl') || undefined },
  ];
}

/**
 * For suites that run against every MongoDB wire server: one entry per server, to be used as
 * `describe.skipIf(!server.url)(\`${suite} [${server.name}]\`, ...)`. A server that is not up is
 * reported with a loud SKIPPED line; in CI (CI=true) it throws instead: a missing server fails.
 */
export function mongoTestServers(suite: string): MongoTestServer[] {
  const servers = mongoTestServerList();
  for (const server of servers) if (!server.url) skippedOrFail(`${suite} [${server.name}]`, server.name);
  return servers;
}

/**
 * The MongoDB URL of suites that use one server: MONGODB_URL (a real MongoDB) first, else the
 * first test server that is up (mongo-java-server, then FerretDB), else undefined.
 */
export function mongoTestUrl(): string | undefined {
  return mongoTestServerList().find((s) => s.url)?.url;
}

/**
 * For suites that need one MongoDB: returns the URL, or undefined after a loud warning so the caller
 * can `describe.skipIf(!url)`. In CI (CI=true) a missing server throws: it fails, never skips.
 */
export function requireMongoUrl(suite: string): string | undefined {
  const url = mongoTestUrl();
  if (url) return url;
  skippedOrFail(suite, 'MongoDB');
  return undefined;
}

function skippedOrFail(suite: string, server: string): void {
  const hint = server === 'FerretDB' ? FERRETDB_HINT : FETCH_HINT;
  const message = `${suite}: no ${server} for this run (set MONGODB_URL, or ${hint})`;
  if (isCi()) throw new Error(`${message}; CI=true, so this is a failure, not a skip`);
  console.warn(`\n!!! SKIPPED ${message}\n`);
}

/** A database name unique to one test file or case: all workers share one server per run. */
export function uniqueDbName(prefix: string): string {
  const safe = prefix.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 30);
  return `${safe}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The environment of a service whose read models, partners and rate limits live in MongoDB at
 * `url`, database `db`; the event log stays embedded. Its own webhook secrets key: a fresh
 * database holds no sealed secret of another key.
 */
export function mongoReadStoreEnv(url: string, db: string) {
  return {
    READ_STORE: 'mongodb',
    MONGODB_URL: url,
    MONGODB_DB: db,
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
  };
}

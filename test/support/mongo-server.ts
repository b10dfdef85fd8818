// A real MongoDB wire server for tests on machines without MongoDB or Docker: mongo-java-server
// (in-memory backend) started through test/support/mongo-launcher, fetched by
// .ci/fetch-test-servers.sh into .tools/. Tests call mongoTestUrl()/requireMongoUrl(); the global
// set-up calls startMongoJavaServer() once per run and provides the URL.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by global-setup.ts when it started mongo-java-server for this run. */
    mongoJavaServerUrl: string | undefined;
  }
}

export interface MongoJavaServer {
  url: string;
  stop(): Promise<void>;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MONGO_JAVA_SERVER_DIR = path.join(ROOT, '.tools/mongo-java-server');
const LIB = path.join(MONGO_JAVA_SERVER_DIR, 'lib');
const CLASSES = path.join(MONGO_JAVA_SERVER_DIR, 'classes');
const FETCH_HINT = 'run .ci/fetch-test-servers.sh (needs mvn and a JDK 17+)';

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

/**
 * The MongoDB URL tests should use: MONGODB_URL (a real MongoDB) first, else the mongo-java-server
 * the global set-up started, else undefined.
 */
export function mongoTestUrl(): string | undefined {
  const fromEnv = process.env.MONGODB_URL?.trim();
  if (fromEnv) return fromEnv;
  return inject('mongoJavaServerUrl') || undefined;
}

/**
 * For suites that need MongoDB: returns the URL, or undefined after a loud warning so the caller
 * can `describe.skipIf(!url)`. In CI (CI=true) a missing server throws: it fails, never skips.
 */
export function requireMongoUrl(suite: string): string | undefined {
  const url = mongoTestUrl();
  if (url) return url;
  const message = `${suite}: no MongoDB for this run (set MONGODB_URL, or ${FETCH_HINT})`;
  if (isCi()) throw new Error(`${message}; CI=true, so this is a failure, not a skip`);
  console.warn(`\n!!! SKIPPED ${message}\n`);
  return undefined;
}

/** A database name unique to one test file or case: all workers share one server per run. */
export function uniqueDbName(prefix: string): string {
  const safe = prefix.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 30);
  return `${safe}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

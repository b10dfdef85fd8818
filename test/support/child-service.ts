import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export const MAIN = 'dist/src/main.js';
export const CLI = 'dist/src/cli/main.js';

/** Builds dist/ when a test runs service processes and the build is missing. */
export function ensureBuilt(): void {
  if (!fs.existsSync(MAIN) || !fs.existsSync(CLI)) {
    const r = spawnSync('npm', ['run', 'build', '--silent'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`build failed: ${r.stderr}`);
  }
}

export function runCli(dataDir: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface ChildService {
  child: ChildProcess;
  port: number;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * Starts `node dist/src/main.js` on a free port and resolves once it listens. The default bound is
 * generous: a start takes about a second on an idle machine and many times that on a busy one.
 */
export function startChildService(
  dataDir: string,
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<ChildService> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`service did not start in ${timeoutMs} ms:\n${out.slice(-2000)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.length > 1_000_000) out = out.slice(-200_000);
      const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-200_000)));
        const port = Number(m[1]);
        resolve({ child, port, url: `http://127.0.0.1:${port}`, output: () => out, exited });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}) before listening:\n${out.slice(-2000)}`));
    });
  });
}

/** SIGTERM to a started service (none, or one already gone, is fine); resolves with its exit code. */
export async function stopChildService(service: ChildService | undefined): Promise<number | null | undefined> {
  if (!service) return undefined;
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGTERM');
  return service.exited;
}

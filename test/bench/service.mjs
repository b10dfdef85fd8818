// Starting and talking to child processes: the bare Express baseline and the service itself.
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);

export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs the service's CLI on a DATA_DIR and returns its stdout. */
export async function cli(dataDir, args) {
  const { stdout } = await run(process.execPath, [path.join(ROOT, 'dist/src/cli/main.js'), ...args], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** Polls a URL until it answers 200, at most `timeoutMs`. */
export async function waitForOk(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Keeps the last few KB of a child's stderr, to show when it fails. */
function tail(child) {
  let text = '';
  child.stderr?.on('data', (chunk) => {
    text = (text + chunk.toString()).slice(-4000);
  });
  return () => text;
}

export async function startBareExpress({ blobFile } = {}) {
  const child = spawn(process.execPath, [path.join(ROOT, 'test/bench/bare-express.mjs')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...(blobFile ? { BENCH_BLOB_FILE: blobFile } : {}) },
  });
  const stderr = tail(child);
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`bare Express exited (${code}): ${stderr()}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => stopChild(child) };
}

/**
 * The environment assignments and node flags of `npm start` (package.json), so the bench runs the
 * service exactly as users do (and test/unit/start-command.test.ts checks the Docker image's).
 */
export function startCommand() {
  const start = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const words = start.split(/\s+/);
  const env = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, value] = words.shift().split('=');
    env[name] = value;
  }
  if (words[0] !== 'node' || words.at(-1) !== 'dist/src/main.js') throw new Error(`unexpected start script: ${start}`);
  return { env, flags: words.slice(1, -1) };
}

/**
 * The service as it runs in production: `npm start`'s `node [flags] dist/src/main.js` on the embedded stores. Its log
 * lines (LOG_LEVEL=info, JSON) go to /dev/null through a real file descriptor, so every request
 * still pays for building and writing its access-log line, but no terminal or pipe reader is timed.
 * With `processes` > 1, that many service processes on the one DATA_DIR behind one port
 * (cluster.mjs); `pid` is then the list of its pids (its primary's and the workers').
 */
export async function startService({ dataDir, env = {}, nodeArgs = [], processes = 1 }) {
  const port = await freePort();
  const sink = fs.openSync('/dev/null', 'w');
  const start = startCommand();
  const flags = [...start.flags, ...nodeArgs];
  const args =
    processes === 1
      ? [...flags, path.join(ROOT, 'dist/src/main.js')]
      : [path.join(ROOT, 'test/bench/cluster.mjs'), String(processes), ...flags];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      ...start.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SQLITE_SYNCHRONOUS: 'FULL',
      ...env,
    },
    // The cluster's primary prints the pids on stdout; its workers write their log lines to /dev/null.
    stdio: ['ignore', processes === 1 ? sink : 'pipe', 'pipe'],
  });
  fs.closeSync(sink);
  const stderr = tail(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const failed = exited.then((code) => {
    throw new Error(`service exited (${code}) before listening: ${stderr()}`);
  });
  const url = `http://127.0.0.1:${port}`;
  let pid = child.pid;
  if (processes > 1) {
    let out = '';
    const pids = new Promise((resolve) => {
      const read = (d) => {
        out += d;
        if (!out.includes('\n')) return;
        child.stdout.off('data', read);
        child.stdout.resume();
        resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
      };
      child.stdout.on('data', read);
    });
    pid = await Promise.race([pids, failed]);
  }
  await Promise.race([waitForOk(`${url}/healthz`), failed]);
  return { url, pid, stderr, stop: () => stopChild(child) };
}

/** SIGTERM and wait (the service drains and exits 0, which also writes a --cpu-prof profile). */
export function stopChild(child) {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(force);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

/** Resident set size of a process in MB (Linux /proc), current and peak. */
export function residentMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDataDir } from '../support/service.js';
import { CLI, ensureBuilt, startChildService, type ChildService, stopChildService } from '../support/child-service.js';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/wait.js';

// The CLI and the running service's DATA_DIR: a command run with the default ./data while the
// service uses another directory is refused with the fix, instead of writing where the service
// never looks (a new key answering 401). Each test run has its own registry of running services
// (XDG_RUNTIME_DIR), so services of other tests do not count here.

let root: string;
let serviceDir: string;
let elsewhere: string;
let registry: string;
let service: ChildService;

/** The CLI as `npm run cli` runs it from `cwd`, DATA_DIR and PORT set only when given. */
function cli(args: string[], env: Record<string, string> = {}, cwd = elsewhere) {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', XDG_RUNTIME_DIR: registry };
  delete base.DATA_DIR;
  delete base.PORT;
  const r = spawnSync(process.execPath, [path.resolve(CLI), ...args], {
    env: { ...base, ...env },
    cwd,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const ping = (key: string) => fetch(`${service.url}/v1/ping`, { headers: { Authorization: `Bearer ${key}` } });

beforeAll(async () => {
  ensureBuilt();
  root = fs.realpathSync(tempDataDir());
  serviceDir = path.join(root, 'service-data');
  elsewhere = path.join(root, 'project');
  registry = path.join(root, 'run');
  fs.mkdirSync(elsewhere);
  service = await startChildService(serviceDir, { XDG_RUNTIME_DIR: registry });
}, PROCESS_TEST_TIMEOUT_MS);

afterAll(async () => {
  await stopChildService(service);
  fs.rmSync(root, { recursive: true, force: true });
});

describe('CLI: which DATA_DIR', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('when DATA_DIR is not set and the running service uses another directory, then it refuses with the fix and writes nothing', () => {
    const r = cli(['partners', 'create', '--name', 'Guard Test']);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `error: DATA_DIR is not set, so this command would use ${path.join(elsewhere, 'data')}, ` +
        `but the running service uses ${serviceDir} (pid ${service.child.pid}, port ${service.port}). ` +
        `Run: DATA_DIR=${serviceDir} npm run cli -- partners create --name 'Guard Test'  ` +
        `(or, to use ${path.join(elsewhere, 'data')} anyway: DATA_DIR=${path.join(elsewhere, 'data')} npm run cli -- partners create --name 'Guard Test').`,
    );
    expect(fs.existsSync(path.join(elsewhere, 'data'))).toBe(false);
  });

  it('when DATA_DIR is not set and several services run on other directories, then it names them all and picks none', () => {
    const registryDir = fs.readdirSync(registry).map((d) => path.join(registry, d))[0]!;
    // A second service as the registry sees one: this test's own (running) process.
    const second = path.join(registryDir, `${process.pid}.json`);
    fs.writeFileSync(
      second,
      JSON.stringify({ pid: process.pid, port: 1, data_dir: '/srv/second', started_at: '', proc_start: null }),
    );
    try {
      const r = cli(['partners', 'list']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('but the running services use ');
      expect(r.stderr).toContain(`${serviceDir} (pid ${service.child.pid}, port ${service.port})`);
      expect(r.stderr).toContain(`/srv/second (pid ${process.pid}, port 1)`);
      expect(r.stderr).toContain('Set DATA_DIR to the directory of the service you mean  (or, to use ');
      expect(r.stderr).not.toContain('Run: DATA_DIR=');
    } finally {
      fs.rmSync(second);
    }
  });

  it('when the fix is followed, then the new key works against the running service at once', async () => {
    const r = cli(['partners', 'create', '--name', 'Guard Test', '--json'], { DATA_DIR: serviceDir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const { sandbox_key } = JSON.parse(r.stdout) as { sandbox_key: string };
    await expect.poll(async () => (await ping(sandbox_key)).status, { timeout: 10_000 }).toBe(200);
  });

  it('when PORT names the running service and DATA_DIR another directory, then it refuses naming both', () => {
    const other = path.join(root, 'other-data');
    const r = cli(['partners', 'list'], { DATA_DIR: other, PORT: String(service.port) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`DATA_DIR is ${other}, but the service on port ${service.port}`);
    expect(r.stderr).toContain(`uses ${serviceDir}. Run: DATA_DIR=${serviceDir} npm run cli -- partners list`);
  });

  it('when DATA_DIR is chosen explicitly, then it is used as asked, whatever service runs', () => {
    const other = path.join(root, 'prepared-data');
    const r = cli(['partners', 'create', '--name', 'Prepared'], { DATA_DIR: other });
    expect(r.code, r.stderr).toBe(0);
    expect(cli(['partners', 'list'], { DATA_DIR: other }).stdout).toContain('Prepared');
  });

  it('when a command that only reads names a directory with no data (a mistyped DATA_DIR), then it refuses (the catalog views show the demo one) and makes nothing', () => {
    const typo = path.join(root, 'servce-data');
    for (const args of [
      ['partners', 'list'],
      ['keys', 'list', '--partner', 'ptn_x'],
      ['streams', 'list'],
      ['streams', 'show', 'order-x'],
      ['orders', 'history', 'ord_x'],
    ]) {
      const r = cli(args, { DATA_DIR: typo });
      expect(r.code, args.join(' ')).toBe(1);
      const file = args[0] === 'partners' || args[0] === 'keys' ? 'service.db' : 'events.db';
      expect(r.stderr.trim().split('\n')).toEqual([
        `error: ${typo} holds no ${file}: no data directory there, so nothing to read (this command makes none). Check DATA_DIR.`,
      ]);
      expect(fs.existsSync(typo), args.join(' ')).toBe(false);
    }
    // The catalog's views show the demo catalog a first start would load, from the shipped file.
    for (const args of [
      ['catalog', 'stats'],
      ['catalog', 'export'],
    ]) {
      const r = cli(args, { DATA_DIR: typo });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stderr).toContain(`${typo} holds no data yet: this is the demo catalog a first start would load`);
      expect(fs.existsSync(typo), args.join(' ')).toBe(false);
    }
    // Empty files (touched, truncated) are no data either; they are left as they are.
    const touched = path.join(root, 'touched-data');
    fs.mkdirSync(touched);
    fs.writeFileSync(path.join(touched, 'events.db'), '');
    for (const args of [
      ['partners', 'list'],
      ['streams', 'list'],
    ]) {
      const r = cli(args, { DATA_DIR: touched });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toContain('no data directory there');
    }
    expect(fs.readdirSync(touched)).toEqual(['events.db']);
    expect(fs.statSync(path.join(touched, 'events.db')).size).toBe(0);
    // One file lost from a directory in use is not a typo: the identity check names it.
    const lived = path.join(root, 'lived-data');
    expect(cli(['partners', 'create', '--name', 'Lived'], { DATA_DIR: lived }).code).toBe(0);
    for (const [lost, args] of [
      ['events.db', ['streams', 'list']],
      ['service.db', ['partners', 'list']],
    ] as const) {
      const copy = `${lived}-${lost}`;
      fs.cpSync(lived, copy, { recursive: true });
      for (const f of fs.readdirSync(copy).filter((f) => f.startsWith(lost))) fs.rmSync(path.join(copy, f));
      const r = cli([...args], { DATA_DIR: copy });
      expect(r.code, lost).toBe(1);
      expect(r.stderr, lost).toContain(`${lost} is missing or empty`);
      expect(r.stderr, lost).not.toContain('no data directory there');
    }
  });

  it('when data-dir adopt runs with DATA_DIR not set, or with PORT naming the running service, then it refuses as every store command does and makes no directory', () => {
    const unset = cli(['data-dir', 'adopt', '--yes']);
    expect(unset.code).toBe(1);
    expect(unset.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^error: DATA_DIR is not set, so this command would use ${path.join(elsewhere, 'data')}, but the running service uses ${serviceDir} `,
        ),
      ),
    ]);
    const byPort = cli(['data-dir', 'adopt', '--yes'], { PORT: String(service.port) });
    expect(byPort.code).toBe(1);
    expect(byPort.stderr).toContain(
      `DATA_DIR is ${path.join(elsewhere, 'data')}, but the service on port ${service.port}`,
    );
    expect(byPort.stdout).toBe('');
    expect(fs.existsSync(path.join(elsewhere, 'data'))).toBe(false);
  });

  it('when data-dir adopt runs on a directory with no stores (no service seen, DATA_DIR unset), then it refuses and makes nothing', () => {
    const empty = path.join(root, 'no-services');
    fs.mkdirSync(empty);
    const r = cli(['data-dir', 'adopt', '--yes'], { XDG_RUNTIME_DIR: empty });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${path.join(elsewhere, 'data')} holds neither events.db nor service.db: nothing to adopt.`,
    );
    expect(fs.existsSync(path.join(elsewhere, 'data'))).toBe(false);
  });

  it('when audit verify --url names the running service and DATA_DIR another directory, then it refuses naming both and opens nothing', () => {
    const other = path.join(root, 'audit-data');
    for (const host of ['localhost', '127.0.0.1', '[::1]']) {
      const url = `http://${host}:${service.port}`;
      const r = cli(['audit', 'verify', '--url', url], { DATA_DIR: other, ADMIN_TOKEN: 'a'.repeat(32) });
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        `error: DATA_DIR is ${other}, but the service at ${url} (pid ${service.child.pid}, port ${service.port}) uses ${serviceDir}. ` +
          `Run: DATA_DIR=${serviceDir} npm run cli -- audit verify --url ${host === '[::1]' ? `'${url}'` : url}  (or pass --url of the service that uses ${other}).`,
      ]);
    }
    expect(fs.existsSync(other)).toBe(false);
  });

  it('when the only registered service is gone (a stale file), then the default directory is used and named', () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const registryDir = fs.readdirSync(registry).map((d) => path.join(registry, d))[0]!;
    const stale = path.join(registryDir, `${dead}.json`);
    fs.writeFileSync(
      stale,
      JSON.stringify({ pid: dead, port: 1, data_dir: '/nowhere', started_at: '', proc_start: null }),
    );
    return stopChildService(service).then((code) => {
      expect(code).toBe(0);
      // The service removed its own file on the way out; the stale one is skipped and removed.
      const r = cli(['partners', 'create', '--name', 'Default Dir']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(
        `DATA_DIR: ${path.join(elsewhere, 'data')} (the default; set DATA_DIR to use another directory)\n`,
      );
      expect(fs.readdirSync(registryDir)).toEqual([]);
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDataDir } from '../support/service.js';
import { ensureBuilt, startChildService } from '../support/child-service.js';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/wait.js';

const CLI = 'dist/src/cli/main.js';
let dataDir: string;

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const file = (name: string, content: unknown) => {
  const p = path.join(dataDir, name);
  fs.writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};

// Structured clone of the exported catalog, for building good and bad variants of it.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const exported = (): Json => JSON.parse(cli(['catalog', 'export']).stdout);

beforeAll(() => {
  ensureBuilt();
  dataDir = tempDataDir();
}, 120_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('CLI: catalog', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('when stats runs on a fresh DATA_DIR, then it reports the demo catalog, says so, and writes nothing', () => {
    const r = cli(['catalog', 'stats', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `${dataDir} holds no data yet: this is the demo catalog a first start would load (nothing was stored).\n`,
    );
    expect(fs.readdirSync(dataDir)).toEqual([]);
    const stats = JSON.parse(r.stdout);
    expect(stats.stores).toBeGreaterThanOrEqual(60);
    expect(Object.keys(stats.stores_by_city).length).toBeGreaterThanOrEqual(2);
    expect(cli(['catalog', 'stats']).stdout).toMatch(
      /^Catalog \S+\n {2}stores: +\d+ \(restaurant \d+, pharmacy \d+, grocery \d+\)/,
    );
  });

  it('when a file has problems, then each is printed as "path: message", the exit code is 1 and the catalog is unchanged', () => {
    const before = cli(['catalog', 'export']).stdout;
    const bad = exported();
    bad.stores[2].menu.categories[0].items[1].price = -5;
    bad.stores[0].currency = 'XYZ';
    bad.stores[1].surprise = true;
    bad.version = 'must-not-land';
    const r = cli(['catalog', 'import', file('bad.json', bad)]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^stores\[2\]\.menu\.categories\[0\]\.items\[1\]\.price: /),
        expect.stringMatching(/^stores\[0\]\.currency: /),
        'stores[1].surprise: unknown field',
      ]),
    );
    expect(lines.at(-1)).toMatch(/^error: .*bad\.json was not imported: 3 problem\(s\)/);
    expect(r.stdout).toBe('');
    expect(cli(['catalog', 'export']).stdout).toBe(before);
  });

  it('when the directory has data but no catalog stored, then stats and export show the demo one, say so, and store nothing', () => {
    const partner = cli(['partners', 'create', '--name', 'Catalog reader']);
    expect(partner.code, partner.stderr).toBe(0);
    const said = 'no catalog is stored yet: this is the demo catalog a first start would load (nothing was stored).\n';
    for (let i = 0; i < 2; i++) {
      const r = cli(['catalog', 'stats', '--json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).stores).toBeGreaterThanOrEqual(60);
      expect(r.stderr).toBe(said);
      const exported = cli(['catalog', 'export']);
      expect(JSON.parse(exported.stdout).stores).toHaveLength(JSON.parse(r.stdout).stores);
      expect(exported.stderr).toBe(said);
    }
  });

  it('when an offer names an unknown store, then the cross-reference problem is named by path', () => {
    const bad = exported();
    const i = bad.offers.findIndex((o: Json) => o.store_id !== undefined);
    bad.offers[i].store_id = 'no-such-store';
    const r = cli(['catalog', 'import', file('xref.json', bad)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`offers[${i}].store_id: unknown store: no-such-store`);
  });

  it('when a string holds an unpaired surrogate, then the import is refused naming its path, and the catalog is unchanged', () => {
    const before = cli(['catalog', 'export']).stdout;
    const bad = exported();
    bad.stores[3].menu.categories[0].items[0].name = 'Falafel \ud800 wrap'; // JSON.stringify writes it as the escape \ud800
    const r = cli(['catalog', 'import', file('surrogate.json', bad)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('stores[3].menu.categories[0].items[0].name: must be well-formed Unicode');
    expect(r.stderr).toMatch(/error: .*surrogate\.json was not imported: 1 problem\(s\)/);
    expect(cli(['catalog', 'export']).stdout).toBe(before);
  });

  it('when the file is missing or not JSON, then one error line and exit 1', () => {
    expect(cli(['catalog', 'import', path.join(dataDir, 'nope.json')])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: cannot read /),
    });
    expect(cli(['catalog', 'import', file('broken.json', '{"version": ')])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: .* is not valid JSON/),
    });
  });

  it('when the reader of an export stops early (| head -1), then the CLI ends quietly, as SIGPIPE would end it', async () => {
    // A stored catalog, so that nothing is said on stderr of the demo one.
    const stored = path.join(dataDir, 'stored.json');
    expect(cli(['catalog', 'export', stored]).code).toBe(0);
    expect(cli(['catalog', 'import', stored]).code).toBe(0);
    const child = spawn(process.execPath, [CLI, 'catalog', 'export'], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(141);
  });

  it('when an export is imported, then it round-trips and import prints the stats', () => {
    const out = path.join(dataDir, 'export.json');
    expect(cli(['catalog', 'export', out]).code).toBe(0);
    const r = cli(['catalog', 'import', out, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(cli(['catalog', 'stats', '--json']).stdout));
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual(exported());
  });

  it.each([[['catalog']], [['catalog', 'import']], [['catalog', 'export']], [['catalog', 'stats']]])(
    'when %j --help is asked, then usage is printed',
    (args) => {
      const r = cli([...args, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage:');
    },
  );
});

describe('CLI: catalog import seen by a running server', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let server: ChildProcess | undefined;
  afterAll(async () => {
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  });

  it('when the CLI imports a catalog with a new store, then the running server lists it within seconds, without restart', async () => {
    const partner = JSON.parse(cli(['partners', 'create', '--name', 'Catalog watcher', '--json']).stdout);
    const started = await startChildService(dataDir);
    server = started.child;
    const storesNamed = async (q: string) => {
      const res = await fetch(`http://127.0.0.1:${started.port}/v1/stores?q=${encodeURIComponent(q)}`, {
        headers: { Authorization: `Bearer ${partner.sandbox_key}` },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: Array<{ id: string }> }).data.map((s) => s.id);
    };
    expect(await storesNamed('Freshly Imported Falafel')).toEqual([]);

    const next = exported();
    next.version = 'cli-visible-1';
    next.stores.push({ ...next.stores[0], id: 'kw-freshly-imported', name: 'Freshly Imported Falafel', name_ar: null });
    expect(cli(['catalog', 'import', file('next.json', next)]).code).toBe(0);

    const deadline = Date.now() + 60_000; // the server polls every 2 s; the bound only catches a hang
    let found: string[] = [];
    while (Date.now() < deadline && found.length === 0) {
      found = await storesNamed('Freshly Imported Falafel');
      if (found.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(found).toEqual(['kw-freshly-imported']);
  });
});

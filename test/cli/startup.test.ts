import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI, ensureBuilt, runCli } from '../support/child-service.js';
import { tempDataDir } from '../support/service.js';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/wait.js';

// Every CLI command is its own process, so what it loads at start is paid on each run (and many
// times over in the CLI suites on a busy machine). The drivers of the production stores and the HTTP
// stack are CommonJS packages, so `require.cache` at exit shows whether a command loaded them.
const PROBE = `process.on('exit', () => {
  const pkgs = new Set(Object.keys(require.cache).map((f) => (/node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f) || [])[1]).filter(Boolean));
  require('node:fs').writeSync(2, 'LOADED ' + [...pkgs].join(',') + '\\n');
});`;

let dataDir: string;
let probe: string;

beforeAll(() => {
  ensureBuilt();
  dataDir = tempDataDir();
  probe = path.join(dataDir, 'probe.cjs');
  fs.writeFileSync(probe, PROBE);
  // A directory in use: the commands that only read refuse one without data before loading much.
  expect(runCli(dataDir, ['partners', 'create', '--name', 'Start-up']).code).toBe(0);
}, 120_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Runs the CLI with the probe; the packages it loaded (main thread and workers together). */
function loadedBy(args: string[]): Promise<{ code: number | null; packages: Set<string> }> {
  const child = spawn(process.execPath, ['--require', probe, CLI, ...args], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', EVENT_STORE: 'embedded', READ_STORE: 'embedded' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      const packages = new Set(
        stderr.split('\n').flatMap((l) => (l.startsWith('LOADED ') ? l.slice(7).split(',') : [])),
      );
      resolve({ code, packages });
    }),
  );
}

describe('CLI start-up, embedded mode', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it.each([[['--help']], [['streams', 'list']], [['partners', 'list']], [['ops', 'ord_missing', 'accept']]])(
    'when `%j` runs, then neither the MongoDB or EventStoreDB driver is loaded, and only ops loads the HTTP stack',
    async (args) => {
      const { packages } = await loadedBy(args);
      expect(packages.has('commander'), 'the probe sees what the CLI loads').toBe(true);
      expect(packages.has('mongodb')).toBe(false);
      expect(packages.has('@eventstore/db-client')).toBe(false);
      expect(packages.has('@grpc/grpc-js')).toBe(false);
      // `ops` runs the action in the service's own code (buildServices), which brings Express along.
      expect(packages.has('express')).toBe(args[0] === 'ops');
    },
  );
});

#!/usr/bin/env node
// Runs tsc (incrementally) only when a source is newer than the last successful build, so that
// `npm run cli` and `npm start` start at once when nothing changed. Directories count too: a
// deleted or renamed file changes its directory's time. `npm run build` always builds in full.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

process.chdir(path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));

const STAMP = 'dist/.build-stamp';
const INPUTS = ['src', 'projections', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
const ENTRY_POINTS = ['dist/src/main.js', 'dist/src/cli/main.js'];

/** The newest modification time under `p` (the path itself included), 0 when it does not exist. */
function newest(p) {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  let t = st.mtimeMs;
  if (st.isDirectory()) for (const name of fs.readdirSync(p)) t = Math.max(t, newest(path.join(p, name)));
  return t;
}

const built = fs.statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const current = built > 0 && ENTRY_POINTS.every((f) => fs.existsSync(f)) && INPUTS.every((p) => newest(p) <= built);
if (!current) {
  const started = new Date();
  const tsc = spawnSync(
    process.execPath,
    [
      'node_modules/typescript/bin/tsc',
      '-p',
      'tsconfig.build.json',
      '--incremental',
      '--tsBuildInfoFile',
      'dist/.tsbuildinfo',
    ],
    { stdio: 'inherit' },
  );
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  // The console's copies of mermaid, as `npm run build` writes them (src/http/console/prepare-assets.ts).
  const assets = spawnSync(process.execPath, ['dist/src/http/console/prepare-assets.js'], { stdio: 'inherit' });
  if (assets.status !== 0) process.exit(assets.status ?? 1);
  // Stamped with the time the build started: a file saved while tsc ran is built next time.
  fs.writeFileSync(STAMP, '');
  fs.utimesSync(STAMP, started, started);
}

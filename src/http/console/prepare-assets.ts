import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip, constants } from 'node:zlib';
import { MERMAID } from './assets.js';

/**
 * Writes the gzipped copy of mermaid's bundle that the console serves (assets.ts), at build time
 * (`npm run build` runs it), so no process spends memory or CPU on it. Written to a temporary name
 * and renamed: a reader never sees half a file.
 */
export async function prepareConsoleAssets(): Promise<string> {
  const target = MERMAID.gzipped;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.tmp`;
  await pipeline(
    fs.createReadStream(MERMAID.plain()),
    createGzip({ level: constants.Z_BEST_COMPRESSION }),
    fs.createWriteStream(partial),
  );
  fs.renameSync(partial, target);
  return target;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const written = await prepareConsoleAssets();
  console.log(`console assets: ${path.relative(process.cwd(), written)}`);
}

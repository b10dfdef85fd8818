import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip, constants } from 'node:zlib';
import { MERMAID } from './assets.js';

/**
 * Writes the copies of mermaid's bundle that the console serves (assets.ts), plain and gzipped, at
 * build time (`npm run build` runs it): a production install then needs no mermaid package, and no
 * process spends memory or CPU on gzip. Each is written to a temporary name and renamed: a reader
 * never sees half a file.
 */
export async function prepareConsoleAssets(): Promise<string[]> {
  fs.mkdirSync(path.dirname(MERMAID.built), { recursive: true });
  const write = async (target: string, transform?: NodeJS.ReadWriteStream): Promise<string> => {
    const partial = `${target}.${process.pid}.tmp`;
    const source = fs.createReadStream(MERMAID.source());
    if (transform) await pipeline(source, transform, fs.createWriteStream(partial));
    else await pipeline(source, fs.createWriteStream(partial));
    fs.renameSync(partial, target);
    return target;
  };
  return [
    await write(MERMAID.built),
    await write(MERMAID.gzipped, createGzip({ level: constants.Z_BEST_COMPRESSION })),
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const written = await prepareConsoleAssets();
  console.log(`console assets: ${written.map((f) => path.relative(process.cwd(), f)).join(', ')}`);
}

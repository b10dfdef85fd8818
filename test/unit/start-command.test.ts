import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startCommand } from '../bench/service.mjs';

// The Docker image (Dockerfile) runs the service as `npm start` does (package.json): the same node
// flags and the same environment settings read at process start. Checked by reading both files (no
// Docker engine here), so the two cannot drift apart.

const dockerfile = fs.readFileSync('Dockerfile', 'utf8');

/** The runtime stage: the Dockerfile's last `FROM` onwards. */
const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

describe('the Docker image and npm start', () => {
  it('then the image runs node with the same flags', () => {
    // Docker runs the last CMD of the stage.
    const cmd = [...runtimeStage.matchAll(/^CMD (\[.*\])$/gm)].at(-1)?.[1];
    expect(cmd, 'a CMD in exec form').toBeDefined();
    const words = JSON.parse(cmd!) as string[];
    expect(words[0]).toBe('node');
    expect(words.at(-1)).toBe('dist/src/main.js');
    expect(words.slice(1, -1)).toEqual(startCommand().flags);
  });

  it('then the image sets the same environment for the process', () => {
    const env = Object.fromEntries(
      [...runtimeStage.matchAll(/^ENV ([A-Z_]+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!] as const),
    );
    const wanted = startCommand().env;
    expect(Object.keys(wanted)).toContain('MALLOC_ARENA_MAX');
    for (const [name, value] of Object.entries(wanted)) expect(env[name], name).toBe(value);
  });
});

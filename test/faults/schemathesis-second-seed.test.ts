import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * The fuzzing of `.ci/schemathesis.sh` (every check, both modes, all phases) with a second seed
 * besides the CI run's 4242, so the suite that runs the long jobs (`npm run test:faults`) explores
 * other inputs on every run. FUZZ_SEED and FUZZ_EXAMPLES change it; the script's own output is
 * printed when it fails.
 */
const SEED = process.env.FUZZ_SEED ?? '9001';
const EXAMPLES = process.env.FUZZ_EXAMPLES ?? '40';
// About 5-6 minutes on 2 cores at 40 examples per operation; the bound only catches a hang.
const TIMEOUT_MS = 30 * 60_000;

describe(`schemathesis with a second seed (${SEED})`, () => {
  it(
    'both OpenAPI documents pass every check in both modes and all phases',
    async () => {
      const child = spawn('bash', ['.ci/schemathesis.sh'], {
        env: { ...process.env, ST_SEED: SEED, ST_EXAMPLES: EXAMPLES },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', resolve);
      });
      if (code !== 0) process.stdout.write(output);
      expect(code, output.slice(-4000)).toBe(0);
      expect(output).toContain(`seed ${SEED}`);
    },
    TIMEOUT_MS,
  );
});

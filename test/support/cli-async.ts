import { spawn } from 'node:child_process';
import { CLI } from './child-service.js';

/**
 * `runCli` without blocking the test process: `spawnSync` would freeze its event loop for the
 * seconds a CLI run takes, and with it any receiver or client running in the test. Same defaults
 * as runCli (DATA_DIR, LOG_LEVEL=silent); the run is killed after `timeoutMs` (code null then).
 */
export function runCliAsync(
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      stderr += `\n(runCliAsync: killed after ${timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => (stderr += `\n(runCliAsync: ${err.message})`));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

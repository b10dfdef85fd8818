import { setTimeout as delay } from 'node:timers/promises';

/**
 * Timeout of a test that runs CLI commands or service processes. Each such process loads Node and
 * the service's modules: a fraction of a second on an idle machine, several seconds on a busy 2-core
 * CI machine. The bound only catches a hang; vitest's default (20 s) fails tests that are merely slow.
 */
export const PROCESS_TEST_TIMEOUT_MS = 120_000;

/**
 * Polls `condition` until it returns something other than `false`, `undefined` or `null`, and
 * returns that. Fails after `timeoutMs` (generous by default: the bound catches a hang, it is no
 * part of what is tested), naming `what` and the last error `condition` threw.
 */
export async function waitFor<T>(
  condition: () => T | false | undefined | null | Promise<T | false | undefined | null>,
  options: { what?: string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const { what = 'condition', timeoutMs = 30_000, intervalMs = 25 } = options;
  const until = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== false && value !== undefined && value !== null) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= until) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`waited ${timeoutMs} ms for ${what}${why}`);
    }
    await delay(intervalMs);
  }
}

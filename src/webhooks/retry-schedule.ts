// Spec "Retries": waits before attempts 1..7 are immediately, 1 min, 5 min, 30 min, 2 h, 6 h,
// 12 h; after the 7th failed attempt (about 20.6 h in all) the delivery is failed.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** RETRY_DELAYS_MS[n] is the wait before attempt n + 1. */
export const RETRY_DELAYS_MS: readonly number[] = [0, MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR];

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;

/**
 * When the next attempt is due after `attemptsMade` failed attempts, the last at `lastAttemptAt`
 * (with none made yet, pass the delivery's creation time: attempt 1 is due at once).
 * Null once all MAX_ATTEMPTS have failed: the delivery is then `failed`.
 */
export function nextAttemptAt(attemptsMade: number, lastAttemptAt: Date): Date | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 0) {
    throw new RangeError(`attemptsMade must be a whole number >= 0, got ${attemptsMade}`);
  }
  const wait = RETRY_DELAYS_MS[attemptsMade];
  return wait === undefined ? null : new Date(lastAttemptAt.getTime() + wait);
}

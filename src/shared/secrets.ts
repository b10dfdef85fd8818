import { createHash, timingSafeEqual } from 'node:crypto';

/** Equal strings, compared as SHA-256 digests in constant time: neither their content nor their length leaks. */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Base62 text of `bytes` random bytes: URL-safe, no padding. */
export function randomToken(bytes: number): string {
  const buf = randomBytes(bytes);
  let n = BigInt('0x' + buf.toString('hex'));
  let out = '';
  const base = BigInt(ALPHABET.length);
  while (n > 0n) {
    out = ALPHABET[Number(n % base)] + out;
    n /= base;
  }
  // Fixed length so tokens of one kind always look alike.
  const length = Math.ceil((bytes * 8) / Math.log2(ALPHABET.length));
  return out.padStart(length, '0');
}

/** `prefix_` + 16 random bytes (128 bits), e.g. `ord_3kT...`. */
export function newId(prefix: string, bytes = 16): string {
  return `${prefix}_${randomToken(bytes)}`;
}

export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

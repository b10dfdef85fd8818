import { createHash, randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

// Random bytes are drawn from the CSPRNG 4 KB at a time and each byte is handed out once (as
// crypto.randomUUID does): one randomBytes() call per id cost ~9% of a GET /v1/ping, where every
// request gets an id.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

function freshBytes(bytes: number): Buffer {
  if (bytes > POOL_SIZE / 4) return randomBytes(bytes);
  if (poolOffset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + bytes));
  poolOffset += bytes;
  return out;
}

/** Base62 text of `bytes` random bytes: URL-safe, no padding. */
export function randomToken(bytes: number): string {
  const buf = freshBytes(bytes);
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

import { hash, randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

// Random bytes are drawn from the CSPRNG 4 KB at a time and each byte is handed out once (as
// crypto.randomUUID does): one randomBytes() call per id costs ~9% of a GET /v1/ping, where every
// request gets an id.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

/** Offset in `pool` of `bytes` fresh random bytes (refilled when used up). */
function takeFromPool(bytes: number): number {
  if (poolOffset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += bytes;
  return at;
}

const lengths: number[] = [];

/**
 * `buf[start, end)` as one big-endian number written in base62, left-padded with '0' to the length
 * every number of that many bytes fits in. Long division on 32-bit limbs: each step's
 * `rem * 2^32 + limb` stays below 62 * 2^32, exact in a double (a BigInt version cost ~3 us per id).
 */
export function base62(buf: Uint8Array, start = 0, end = buf.length): string {
  const bytes = end - start;
  const limbs: number[] = [];
  let i = start;
  const lead = bytes % 4;
  if (lead) {
    let v = 0;
    for (; i < start + lead; i++) v = v * 256 + buf[i]!;
    limbs.push(v);
  }
  for (; i < end; i += 4) limbs.push(((buf[i]! << 24) >>> 0) + (buf[i + 1]! << 16) + (buf[i + 2]! << 8) + buf[i + 3]!);
  const length = (lengths[bytes] ??= Math.ceil((bytes * 8) / Math.log2(ALPHABET.length)));
  let out = '';
  let first = 0;
  for (let pos = 0; pos < length; pos++) {
    let rem = 0;
    for (let j = first; j < limbs.length; j++) {
      const cur = rem * 4294967296 + limbs[j]!;
      const q = Math.floor(cur / 62);
      limbs[j] = q;
      rem = cur - q * 62;
    }
    while (first < limbs.length && limbs[first] === 0) first++;
    out = ALPHABET[rem] + out;
  }
  return out;
}

/** Base62 text of `bytes` random bytes: URL-safe, no padding, fixed length per size. */
export function randomToken(bytes: number): string {
  if (bytes > POOL_SIZE / 4) return base62(randomBytes(bytes));
  const at = takeFromPool(bytes);
  return base62(pool, at, at + bytes);
}

/** `prefix_` + 16 random bytes (128 bits), e.g. `ord_3kT...`. */
export function newId(prefix: string, bytes = 16): string {
  return `${prefix}_${randomToken(bytes)}`;
}

/**
 * `prefix_` + 16 bytes as `newId` writes them: the time in milliseconds (6 bytes, big-endian), then
 * 10 random bytes (80 bits). Ids made close together share their first characters, so the log's
 * stream index and its streams table take a batch of new streams in one leaf page instead of one
 * random page each: a quarter to a third fewer bytes written per order at 500 orders/s
 * (docs/event-store.md, Embedded adapter). A time outside 1970 to year 10889 (a test clock) is
 * clamped to it: the random bytes keep ids apart either way.
 */
export function newTimeOrderedId(prefix: string, atMs: number): string {
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(Math.min(Math.max(Math.trunc(atMs) || 0, 0), 2 ** 48 - 1), 0, 6);
  const at = takeFromPool(10);
  pool.copy(bytes, 6, at, at + 10);
  return `${prefix}_${base62(bytes)}`;
}

/** One-shot crypto.hash: a quarter of the cost of createHash().update().digest() for short inputs. */
export function sha256Hex(text: string | Buffer): string {
  return hash('sha256', text, 'hex');
}

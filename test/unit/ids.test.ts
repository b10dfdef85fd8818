import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { base62, newId, newTimeOrderedId, randomToken } from '../../src/shared/ids.js';
import { BASE62_DIGITS, base62Value } from '../support/base62.js';

describe('random ids', () => {
  it('have a fixed length per size and are base62', () => {
    for (const bytes of [8, 12, 16, 32, 2048]) {
      const token = randomToken(bytes);
      expect(token).toMatch(/^[0-9A-Za-z]+$/);
      expect(token).toHaveLength(Math.ceil((bytes * 8) / Math.log2(62)));
    }
    expect(newId('req', 12)).toMatch(/^req_[0-9A-Za-z]{17}$/);
  });

  it('never repeat, across many refills of the random pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(newId('ord'));
    expect(seen.size).toBe(20_000);
  });
});

describe('time-ordered ids', () => {
  const at = Date.parse('2026-11-25T15:00:00.000Z');

  it('look like random ids of 16 bytes: the same prefix, length and alphabet', () => {
    expect(newTimeOrderedId('ord', at)).toMatch(/^ord_[0-9A-Za-z]{22}$/);
    expect(newTimeOrderedId('ord', at)).toHaveLength(newId('ord').length);
  });

  it('given a time, then the id is that millisecond in 6 bytes followed by 10 random bytes', () => {
    const ids = Array.from({ length: 20_000 }, () => base62Value(newTimeOrderedId('sbx', at).slice(4)));
    expect(new Set(ids).size).toBe(ids.length);
    for (const n of ids) expect(n >> 80n).toBe(BigInt(at));
    // The 80 random bits are all used: some ids have the highest one set, some the lowest.
    expect(ids.some((n) => (n >> 79n) & 1n)).toBe(true);
    expect(ids.some((n) => n & 1n)).toBe(true);
  });

  it('given a time no 6 bytes hold (a test clock before 1970, or not a number), then it is clamped', () => {
    const time = (t: number) => base62Value(newTimeOrderedId('ord', t).slice(4)) >> 80n;
    expect([-1, Number.NaN, 1.9, 2 ** 48].map(time)).toEqual([0n, 0n, 1n, 2n ** 48n - 1n]);
  });
});

describe('base62', () => {
  const reference = (bytes: Uint8Array): string => {
    let n = BigInt('0x0' + Buffer.from(bytes).toString('hex'));
    let out = '';
    while (n > 0n) {
      out = BASE62_DIGITS[Number(n % 62n)] + out;
      n /= 62n;
    }
    return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), '0');
  };

  it('is the big-endian number of the bytes in base 62, at a fixed length', () => {
    for (const size of [1, 2, 3, 4, 5, 7, 12, 16, 24, 32, 33]) {
      const samples = [
        new Uint8Array(size),
        new Uint8Array(size).fill(255),
        ...Array.from({ length: 200 }, () => randomBytes(size)),
      ];
      for (const bytes of samples) expect(base62(bytes), Buffer.from(bytes).toString('hex')).toBe(reference(bytes));
    }
    const buf = randomBytes(40);
    expect(base62(buf, 3, 15)).toBe(reference(buf.subarray(3, 15)));
  });
});

import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { base62, newId, randomToken } from '../../src/shared/ids.js';

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

describe('base62', () => {
  const reference = (bytes: Uint8Array): string => {
    let n = BigInt('0x0' + Buffer.from(bytes).toString('hex'));
    let out = '';
    while (n > 0n) {
      out = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'[Number(n % 62n)] + out;
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

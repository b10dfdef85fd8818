import { describe, expect, it } from 'vitest';
import { newId, randomToken } from '../../src/shared/ids.js';

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

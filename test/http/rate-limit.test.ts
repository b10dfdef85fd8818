import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';

let t: TestService;
let p: TestPartner;
let other: TestPartner;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner({ rateLimitPerMin: 5 });
  other = await t.partner({ rateLimitPerMin: 5 });
});
afterAll(() => t.close());
afterEach(() => vi.useRealTimers());

describe('per-key rate limits', () => {
  it('when a key exceeds its budget, then 429 rate_limited with Retry-After, and the budget resets after the window', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-21T10:00:00Z'));
    for (let i = 0; i < 5; i++) {
      const ok = await t.http.get('/v1/ping').set(bearer(p.live));
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-limit']).toBe('5');
      expect(ok.headers['ratelimit-remaining']).toBe(String(4 - i));
      expect(Number(ok.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    const limited = await t.http.get('/v1/ping').set(bearer(p.live));
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);

    // Another key of another partner keeps its own budget.
    expect((await t.http.get('/v1/ping').set(bearer(other.live))).status).toBe(200);
    // The same partner's sandbox key is a different key with its own budget.
    expect((await t.http.get('/v1/ping').set(bearer(p.sandbox))).status).toBe(200);

    vi.setSystemTime(new Date('2026-11-21T10:01:01Z'));
    const again = await t.http.get('/v1/ping').set(bearer(p.live));
    expect(again.status).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe('4');
  });
});

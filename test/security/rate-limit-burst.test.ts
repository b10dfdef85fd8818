import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

// The per-key budget under a burst over many TCP connections at once, through a real listening
// server: exactly the budget succeeds, and one key's burst costs other keys nothing.

let t: TestService;
let server: http.Server;
let port: number;

beforeAll(async () => {
  t = await startTestService();
  server = http.createServer(t.service.app.express);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { error?: { code: string } };
}

/** One request on its own connection (agent: false), so a burst is many parallel connections. */
function ping(key: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/ping', agent: false, headers: { Authorization: `Bearer ${key}` } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const burst = (key: string, n: number) => Promise.all(Array.from({ length: n }, () => ping(key)));

describe('rate limit under a burst', () => {
  it('200 concurrent requests on 200 connections with a key of 50/min: exactly 50 succeed, the rest are 429 with Retry-After', async () => {
    const p = await t.partner({ rateLimitPerMin: 50 });
    const answers = await burst(p.sandbox, 200);
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(ok).toHaveLength(50);
    expect(limited).toHaveLength(150);
    // Each unit of the budget was handed out once.
    expect(ok.map((a) => Number(a.headers['ratelimit-remaining'])).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    );
    for (const a of limited) {
      expect(a.body.error?.code).toBe('rate_limited');
      expect(a.headers['retry-after']).toMatch(/^\d+$/);
      expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(a.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(a.headers['ratelimit-remaining']).toBe('0');
    }
    // Still limited afterwards, within the window.
    expect((await ping(p.sandbox)).status).toBe(429);
  });

  it("one key's burst does not throttle another key, not even the same partner's other key", async () => {
    const noisy = await t.partner({ rateLimitPerMin: 50 });
    const quiet = await t.partner({ rateLimitPerMin: 50 });
    const [noisyAnswers, quietAnswers, siblingAnswers] = await Promise.all([
      burst(noisy.sandbox, 200),
      burst(quiet.sandbox, 40),
      burst(noisy.live, 40),
    ]);
    expect(noisyAnswers.filter((a) => a.status === 200)).toHaveLength(50);
    expect(quietAnswers.map((a) => a.status)).toEqual(Array(40).fill(200));
    expect(siblingAnswers.map((a) => a.status)).toEqual(Array(40).fill(200));
    expect(Math.min(...quietAnswers.map((a) => Number(a.headers['ratelimit-remaining'])))).toBe(10);
  });
});

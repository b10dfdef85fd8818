import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerAdmin } from '../../src/application/partners.js';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { freshLoopbackAddress, listen, rawRequest, type Listening } from '../support/loopback-client.js';

// Regressions (issue "Hardening"): a key is accepted only as `Authorization: Bearer <key>`, exactly
// as issued; an unknown, a wrong and a revoked key are refused
// alike, in what the answer says and in how long it takes. Failed authentications are throttled
// per client address, so each test sends its refused requests from a loopback address of its own.

let t: TestService;
let p: TestPartner;
let admin: PartnerAdmin;
let server: Listening;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner({ name: 'Auth Regressions', rateLimitPerMin: 100_000 });
  admin = new PartnerAdmin(t.stores.partners, t.clock, 100_000);
  server = await listen(t.service.app.express);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

const ping = (headers: Record<string, string>, from = freshLoopbackAddress()) =>
  rawRequest(server.base, { path: '/v1/ping', headers, from });

/** `key` with the letter case of its secret part flipped at one position (a valid key otherwise). */
function flipCase(key: string): string {
  const prefix = key.slice(0, 9);
  const secret = key.slice(9);
  const i = [...secret].findIndex((c) => c.toLowerCase() !== c.toUpperCase());
  const c = secret[i]!;
  return (
    prefix + secret.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + secret.slice(i + 1)
  );
}

describe('key format and case tricks', () => {
  const TRICKS: Array<[string, () => string]> = [
    ['the prefix in upper case', () => `Bearer ${p.live.slice(0, 9).toUpperCase()}${p.live.slice(9)}`],
    ['the whole key in upper case', () => `Bearer ${p.live.toUpperCase()}`],
    ['the whole key in lower case', () => `Bearer ${p.live.toLowerCase()}`],
    ['one letter of the secret in the other case', () => `Bearer ${flipCase(p.live)}`],
    ['the live secret under the sandbox prefix', () => `Bearer svc_test_${p.live.slice(9)}`],
    ['the sandbox secret under the live prefix', () => `Bearer svc_live_${p.sandbox.slice(9)}`],
    ['the key without its last character', () => `Bearer ${p.live.slice(0, -1)}`],
    ['the key with one more character', () => `Bearer ${p.live}A`],
    ['the key twice', () => `Bearer ${p.live}${p.live}`],
    ['two keys, comma-separated', () => `Bearer ${p.live},${p.sandbox}`],
    ['the key without the prefix', () => `Bearer ${p.live.slice(9)}`],
    ['a tab after the scheme (RFC 9110 allows spaces only)', () => `Bearer\t${p.live}`],
    ['the scheme glued to the key', () => `Bearer${p.live}`],
    ['no scheme', () => p.live],
    ['another scheme', () => `Token ${p.live}`],
    ['Basic with the key as user', () => `Basic ${Buffer.from(`${p.live}:`).toString('base64')}`],
    ['the key quoted', () => `Bearer "${p.live}"`],
    ['the key followed by a NUL escape', () => `Bearer ${p.live}%00`],
    ['a latin-1 look-alike letter in the key', () => `Bearer ${p.live.slice(0, -1)}\u00e9`],
  ];

  it.each(TRICKS)('%s: 401, never the partner', async (_label, header) => {
    const res = await ping({ Authorization: header() });
    expect(res.status).toBe(401);
    expect(['invalid_api_key', 'missing_api_key']).toContain(res.body.error.code);
    expect(JSON.stringify(res.body)).not.toContain(p.id);
  });

  // RFC 9110: the scheme is case-insensitive and followed by one or more spaces.
  it.each([
    ['the scheme in lower case', () => `bearer ${p.live}`],
    ['the scheme in upper case', () => `BEARER ${p.live}`],
    ['two spaces after the scheme', () => `Bearer  ${p.live}`],
  ])('%s: accepted, as RFC 9110 allows', async (_label, header) => {
    expect((await ping({ Authorization: header() })).status).toBe(200);
  });

  it('the untouched key is accepted (the tricks above differ from it in that one way only)', async () => {
    expect((await ping(bearer(p.live))).status).toBe(200);
  });
});

describe('a key anywhere but the Authorization header', () => {
  const get = (path: string, headers: Record<string, string> = {}) =>
    rawRequest(server.base, { path, headers, from: freshLoopbackAddress() });
  it.each([
    ['?api_key=', (key: string) => get(`/v1/ping?api_key=${key}`)],
    ['?key=', (key: string) => get(`/v1/ping?key=${key}`)],
    ['?access_token=', (key: string) => get(`/v1/ping?access_token=${key}`)],
    ['?authorization=Bearer', (key: string) => get(`/v1/ping?authorization=${encodeURIComponent(`Bearer ${key}`)}`)],
    ['X-API-Key', (key: string) => get('/v1/ping', { 'X-API-Key': key })],
    ['Api-Key', (key: string) => get('/v1/ping', { 'Api-Key': key })],
    ['X-Auth-Token', (key: string) => get('/v1/ping', { 'X-Auth-Token': key })],
    ['Proxy-Authorization', (key: string) => get('/v1/ping', { 'Proxy-Authorization': `Bearer ${key}` })],
    ['X-Forwarded-Authorization', (key: string) => get('/v1/ping', { 'X-Forwarded-Authorization': `Bearer ${key}` })],
    ['a cookie', (key: string) => get('/v1/ping', { Cookie: `api_key=${key}; Authorization=Bearer ${key}` })],
    [
      'a JSON body field',
      (key: string) =>
        rawRequest(server.base, {
          method: 'POST',
          path: '/v1/orders',
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k-body-key' },
          body: JSON.stringify({ api_key: key, authorization: `Bearer ${key}` }),
          from: freshLoopbackAddress(),
        }),
    ],
  ])('%s: 401 missing_api_key', async (_where, send) => {
    for (const key of [p.live, p.sandbox]) {
      const res = await send(key);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('missing_api_key');
    }
  });
});

describe('unknown, wrong and revoked keys are refused alike', () => {
  // Two checks. What the answer says: status, body (but the request id) and header names are the
  // same. How long it takes: the key is looked up by its SHA-256 (KeyResolver), so no comparison
  // leaks how much of a key matched. Timing is checked statistically and robustly: fresh keys every
  // request (no cached answer), the three kinds interleaved (a busy moment slows all three), and
  // medians compared with a generous bound (at most 2x apart, or within 1 ms): a refusal that did
  // more work for a known key (a slow hash, a partner lookup) would be far outside it.
  const ROUNDS = 150;

  // Each round from its own address: three refusals, well within the per-address budget.
  async function ask(
    key: string,
    from: string,
  ): Promise<{ ms: number; status: number; body: string; headers: string[] }> {
    const started = performance.now();
    const res = await ping({ Authorization: `Bearer ${key}` }, from);
    const ms = performance.now() - started;
    return {
      ms,
      status: res.status,
      body: res.text.replace(/req_[0-9A-Za-z]+/g, '<request>'),
      headers: Object.keys(res.headers).sort(),
    };
  }

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
  };

  it('same answer, and the same time within a generous bound', { timeout: 120_000 }, async () => {
    const other = await t.partner({ name: 'Timing' });
    const revoked: string[] = [];
    const wrong: string[] = [];
    const unknown: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const { key, record } = await admin.createKey({
        partnerId: other.id,
        environment: i % 2 ? 'live' : 'sandbox',
        scopes: ['orders:read'],
      });
      await admin.revokeKey(record.id);
      revoked.push(key);
      const valid = (
        await admin.createKey({ partnerId: other.id, environment: i % 2 ? 'live' : 'sandbox', scopes: ['orders:read'] })
      ).key;
      wrong.push(valid.slice(0, -1) + (valid.endsWith('A') ? 'B' : 'A')); // a real key, last character wrong
      unknown.push(valid.slice(0, 9) + 'Z'.repeat(valid.length - 9));
      unknown[i] = unknown[i]!.slice(0, -4) + String(1000 + i); // distinct, never issued
    }
    // Warm up the code paths once (first-call JIT), then measure.
    const warmUp = freshLoopbackAddress();
    for (const key of [revoked[0]!, wrong[0]!, unknown[0]!]) await ask(key, warmUp);

    const samples: Record<'unknown' | 'wrong' | 'revoked', Awaited<ReturnType<typeof ask>>[]> = {
      unknown: [],
      wrong: [],
      revoked: [],
    };
    for (let i = 1; i < ROUNDS; i++) {
      const order = (['unknown', 'wrong', 'revoked'] as const).map((_kind, j, all) => all[(i + j) % 3]!);
      const from = freshLoopbackAddress();
      for (const kind of order) samples[kind].push(await ask({ unknown, wrong, revoked }[kind][i]!, from));
    }

    const first = samples.unknown[0]!;
    for (const [kind, list] of Object.entries(samples)) {
      for (const s of list) {
        expect(s.status, kind).toBe(401);
        expect(s.body, kind).toBe(first.body);
        expect(s.headers, kind).toEqual(first.headers);
      }
    }
    const medians = Object.fromEntries(
      Object.entries(samples).map(([kind, list]) => [kind, median(list.map((s) => s.ms))]),
    );
    const values = Object.values(medians);
    const spread = Math.max(...values) - Math.min(...values);
    expect(spread, `median ms per kind: ${JSON.stringify(medians)}`).toBeLessThanOrEqual(
      Math.max(1, Math.min(...values)),
    );
  });
});

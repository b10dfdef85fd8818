import fs from 'node:fs';
import { Writable } from 'node:stream';
import type { Request, Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerAdmin } from '../../src/application/partners.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { ApiError } from '../../src/domain/errors.js';
import { AUTH_FAILURES_PER_WINDOW, AuthThrottle } from '../../src/http/middleware/auth.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { http, type Http } from '../support/http.js';
import { bearer, tempDataDir } from '../support/service.js';

// Failed authentication is throttled per client address: after AUTH_FAILURES_PER_WINDOW failures
// in a window every authentication attempt from that address is 429 until the window ends (valid
// keys too: otherwise the 429s and 200s would tell a guesser which guess was right). Only the
// first failure of an address and the moment it is throttled are logged one by one.

type Line = Record<string, unknown>;
const ADMIN_TOKEN = 'throttle-test-admin-token-0123456789';
const BUDGET = AUTH_FAILURES_PER_WINDOW;
const unknownKey = (n: number) => `svc_test_${String(n).padStart(43, 'x')}`;

interface Running {
  api: Http;
  key: string;
  lines: Line[];
  close(): Promise<void>;
}

async function start(env: Record<string, string>): Promise<Running> {
  const lines: Line[] = [];
  const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(JSON.parse(String(chunk)) as Line), cb()) });
  const dataDir = tempDataDir();
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info', SQLITE_SYNCHRONOUS: 'NORMAL', ADMIN_TOKEN, ...env });
  const clock = new ManualClock();
  const stores: Stores = await openStores(config);
  const service: Service = await buildService(config, stores, { logger: createLogger({ level: 'info', destination: sink }), clock });
  const created = await new PartnerAdmin(stores.partners, clock, 1200).createPartner({ name: 'Throttled' });
  return {
    api: http(service.app),
    key: created.sandbox.key,
    lines,
    close: async () => {
      await service.stop();
      await stores.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('behind a trusted proxy (TRUST_PROXY=loopback): per client address', () => {
  let s: Running;
  beforeAll(async () => {
    s = await start({ TRUST_PROXY: 'loopback' });
  });
  afterAll(() => s.close());
  const from = (address: string) => ({ 'X-Forwarded-For': address });

  it('when an address fails more than its budget, then it gets 429 with Retry-After, even with a valid key, and other addresses are not affected', async () => {
    const client = from('198.51.100.1');
    for (let i = 0; i < BUDGET; i++) {
      const res = await s.api.get('/v1/ping').set(client).set(bearer(unknownKey(i)));
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
    const over = await s.api.get('/v1/ping').set(client).set(bearer(unknownKey(BUDGET)));
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
    const retryAfter = Number(over.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);

    const valid = await s.api.get('/v1/ping').set(client).set(bearer(s.key));
    expect(valid.status).toBe(429);
    expect((await s.api.get('/internal/projections').set(client).set(bearer(ADMIN_TOKEN))).status).toBe(429);
    // Public endpoints need no authentication, so the throttle has nothing to say there.
    expect((await s.api.get('/healthz').set(client)).status).toBe(200);

    expect((await s.api.get('/v1/ping').set(from('198.51.100.2')).set(bearer(s.key))).status).toBe(200);
  });

  it('when the failures are logged, then only the first one of the address and its throttling have lines, not every attempt', async () => {
    const mine = s.lines.filter((l) => l.client_address === '198.51.100.1');
    expect(mine.map((l) => l.msg)).toEqual([
      'authentication failed (more from this address this minute are counted, not logged)',
      'authentication throttled: too many failures from this address',
    ]);
    expect(mine[1]).toMatchObject({ level: 40, failures: BUDGET + 1, error_code: 'invalid_api_key' });
    // Access-log lines for the 401s and 429s of that address: the first one's and the throttling one's.
    const refusedLines = s.lines.filter((l) => l.msg === 'request' && (l.status === 401 || l.status === 429));
    expect(refusedLines.map((l) => l.request_id)).toEqual(mine.map((l) => l.request_id));
    expect(s.lines.length).toBeLessThan(10);
  });

  it('when wrong admin tokens are sent, then they count against the same budget as API keys', async () => {
    const client = from('198.51.100.3');
    for (let i = 0; i < BUDGET; i++) {
      const res = await s.api.get('/internal/projections').set(client).set(bearer(`wrong-admin-token-${i}-0123456789`));
      expect(res.status).toBe(401);
    }
    expect((await s.api.get('/internal/projections').set(client).set(bearer('another-wrong-token-0123456789'))).status).toBe(429);
    expect((await s.api.get('/v1/ping').set(client).set(bearer(s.key))).status).toBe(429);
  });

  it('when the failures come from many addresses of one IPv6 /64, then they share one budget', async () => {
    for (let i = 0; i < BUDGET; i++) {
      expect((await s.api.get('/v1/ping').set(from(`2001:db8:7:7::${(i + 1).toString(16)}`))).status).toBe(401);
    }
    expect((await s.api.get('/v1/ping').set(from('2001:db8:7:7::abcd'))).status).toBe(429);
    expect((await s.api.get('/v1/ping').set(from('2001:db8:7:7:ffff::1')).set(bearer(s.key))).status).toBe(429);
    expect((await s.api.get('/v1/ping').set(from('2001:db8:7:8::1')).set(bearer(s.key))).status).toBe(200);
  });
});

describe('without TRUST_PROXY: the connecting address, whatever X-Forwarded-For says', () => {
  let s: Running;
  beforeAll(async () => {
    s = await start({});
  });
  afterAll(() => s.close());

  it('when a client sends a new X-Forwarded-For with each failure, then they still count against its own address', async () => {
    for (let i = 0; i < BUDGET; i++) {
      const res = await s.api.get('/v1/ping').set('X-Forwarded-For', `203.0.113.${i}`).set(bearer(unknownKey(i)));
      expect(res.status).toBe(401);
    }
    expect((await s.api.get('/v1/ping').set('X-Forwarded-For', '203.0.113.251').set(bearer(unknownKey(BUDGET)))).status).toBe(429);
    const res = await s.api.get('/v1/ping').set('X-Forwarded-For', '203.0.113.250').set(bearer(s.key));
    expect(res.status).toBe(429);
  });
});

describe('the throttle window', () => {
  it('when the window has passed, then the address may authenticate again', async () => {
    const lines: Line[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (c, _e, cb) => (lines.push(JSON.parse(String(c)) as Line), cb()) }) });
    const throttle = new AuthThrottle({ logger, failures: 2, windowSeconds: 1 });
    const req = { ip: '192.0.2.9', socket: {}, res: { locals: {}, setHeader: () => undefined } } as unknown as Request & { res: Response };
    const fail = () => throttle.failed(req, new ApiError('invalid_api_key'));
    for (let i = 0; i < 2; i++) await expect(fail()).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(fail()).rejects.toMatchObject({ code: 'rate_limited' });
    expect(() => throttle.check(req)).toThrow(expect.objectContaining({ code: 'rate_limited' }));
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        throttle.check(req);
        break;
      } catch (err) {
        expect(err).toMatchObject({ code: 'rate_limited' });
        if (Date.now() > deadline) throw new Error('still throttled 10 s after a 1 s window');
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    await expect(fail()).rejects.toMatchObject({ code: 'invalid_api_key' });
  });
});

describe('TRUST_PROXY', () => {
  it('when it is a hop count or a list of addresses, ranges and names, then it is taken; "true" (any client could name itself) is refused', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'uniquelocal' }).TRUST_PROXY).toBe('uniquelocal');
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::1' }).TRUST_PROXY).toBe('loopback, 10.0.0.0/8, fd00::1');
    expect(loadConfig({}).TRUST_PROXY).toBeUndefined();
    for (const bad of ['true', '*', '10.0.0.0/33', 'proxy.example.com']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(ConfigError);
    }
  });
});

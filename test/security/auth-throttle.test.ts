import fs from 'node:fs';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import { Writable } from 'node:stream';
import type { Request, Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerAdmin } from '../../src/application/partners.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { ApiError } from '../../src/domain/errors.js';
import { AUTH_FAILURES_PER_WINDOW, AuthThrottle, clientAddress } from '../../src/http/middleware/auth.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { http, type Http } from '../support/http.js';
import { bearer, tempDataDir } from '../support/service.js';

// Failed authentication is throttled per client address: after AUTH_FAILURES_PER_WINDOW failures
// in a window each further failure from that address is 429 instead of 401 until the window ends,
// while valid keys pass (a shared address is not locked out; keys are 256-bit, a guesser never hits
// one). The admin token may be chosen by a person: its failures have a budget of their own, and an
// address that spent it is refused the token, right or wrong. Only the first failure of an address and the moment it is
// throttled are logged one by one. The counters are bounded in number.

const ADMIN_TOKEN = 'throttle-test-admin-token-0123456789';
const BUDGET = AUTH_FAILURES_PER_WINDOW;
const unknownKey = (n: number) => `svc_test_${String(n).padStart(43, 'x')}`;

interface Running {
  api: Http;
  key: string;
  lines: LogLine[];
  close(): Promise<void>;
}

async function start(env: Record<string, string>): Promise<Running> {
  const lines: LogLine[] = [];
  const sink = jsonLineSink(lines);
  const dataDir = tempDataDir();
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    SQLITE_SYNCHRONOUS: 'NORMAL',
    ADMIN_TOKEN,
    ...env,
  });
  const clock = new ManualClock();
  const stores: Stores = await openStores(config);
  const service: Service = await buildService(config, stores, {
    logger: createLogger({ level: 'info', destination: sink }),
    clock,
  });
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

  it('when an address fails more than its budget, then its failures get 429 with Retry-After, its valid keys still pass, the right admin token does not, and other addresses are not affected', async () => {
    const client = from('198.51.100.1');
    for (let i = 0; i < BUDGET; i++) {
      const res = await s.api
        .get('/v1/ping')
        .set(client)
        .set(bearer(unknownKey(i)));
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
    const over = await s.api
      .get('/v1/ping')
      .set(client)
      .set(bearer(unknownKey(BUDGET)));
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
    const retryAfter = Number(over.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);

    // A shared address (a NAT, an unconfigured proxy): the other clients behind it go on working.
    const valid = await s.api.get('/v1/ping').set(client).set(bearer(s.key));
    expect(valid.status).toBe(200);
    // The admin token has a budget of its own: a partner's client failing behind the operators'
    // address does not lock them out.
    const admin = await s.api.get('/internal/projections').set(client).set(bearer(ADMIN_TOKEN));
    expect(admin.status).toBe(200);
    // Public endpoints need no authentication, so the throttle has nothing to say there.
    expect((await s.api.get('/healthz').set(client)).status).toBe(200);
    const again = await s.api
      .get('/v1/ping')
      .set(client)
      .set(bearer(unknownKey(BUDGET + 1)));
    expect(again.status).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(retryAfter);
    expect((await s.api.get('/v1/ping').set(client)).status).toBe(429); // no key at all counts too

    expect((await s.api.get('/v1/ping').set(from('198.51.100.2')).set(bearer(s.key))).status).toBe(200);
  });

  it('when the failures are logged, then only the first one of the address and its throttling have lines, not every attempt', async () => {
    const mine = s.lines.filter((l) => l.client_address === '198.51.100.1');
    expect(mine.map((l) => l.msg)).toEqual([
      'authentication failed (more from this address this minute are counted, not logged)',
      'authentication throttled: too many failures from this address',
    ]);
    expect(mine[1]).toMatchObject({ level: 40, failures: BUDGET + 1, error_code: 'invalid_api_key' });
    // Access-log lines for the 401s and 429s of that address: the first one's and the throttling
    // one's; the valid key's request and the admin token's have their own (then 198.51.100.2's
    // ping); the throttled attempts after are counted, not logged.
    const refusedLines = s.lines.filter((l) => l.msg === 'request' && (l.status === 401 || l.status === 429));
    expect(refusedLines.map((l) => l.request_id)).toEqual(mine.map((l) => l.request_id));
    expect(refusedLines.map((l) => l.status)).toEqual([401, 429]);
    expect(
      s.lines.filter((l) => l.msg === 'request' && l.status === 200 && l.route !== '/healthz').map((l) => l.route),
    ).toEqual(['/v1/ping', '/internal/projections', '/v1/ping']);
    expect(s.lines.length).toBeLessThan(13);
  });

  it('when wrong admin tokens are sent, then they count against a budget of their own, which refuses the right token once spent', async () => {
    const client = from('198.51.100.3');
    for (let i = 0; i < BUDGET; i++) {
      const res = await s.api
        .get('/internal/projections')
        .set(client)
        .set(bearer(`wrong-admin-token-${i}-0123456789`));
      expect(res.status).toBe(401);
    }
    expect(
      (await s.api.get('/internal/projections').set(client).set(bearer('another-wrong-token-0123456789'))).status,
    ).toBe(429);
    // API keys from the address keep their own budget.
    expect(
      (
        await s.api
          .get('/v1/ping')
          .set(client)
          .set(bearer(unknownKey(0)))
      ).status,
    ).toBe(401);
    expect((await s.api.get('/v1/ping').set(client).set(bearer(s.key))).status).toBe(200);
    // Not the admin token: a guesser must not tell the right one from a wrong one by the answer.
    const admin = await s.api.get('/internal/projections').set(client).set(bearer(ADMIN_TOKEN));
    expect(admin.status).toBe(429);
    expect(admin.body.error.code).toBe('rate_limited');
  });

  it('when the failures come from many addresses of one IPv6 /64, then they share one budget', async () => {
    for (let i = 0; i < BUDGET; i++) {
      expect((await s.api.get('/v1/ping').set(from(`2001:db8:7:7::${(i + 1).toString(16)}`))).status).toBe(401);
    }
    expect((await s.api.get('/v1/ping').set(from('2001:db8:7:7::abcd'))).status).toBe(429);
    expect(
      (
        await s.api
          .get('/v1/ping')
          .set(from('2001:db8:7:7:ffff::1'))
          .set(bearer(unknownKey(1)))
      ).status,
    ).toBe(429);
    expect((await s.api.get('/v1/ping').set(from('2001:db8:7:7:ffff::1')).set(bearer(s.key))).status).toBe(200);
    expect((await s.api.get('/v1/ping').set(from('2001:db8:7:8::1'))).status).toBe(401);
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
      const res = await s.api
        .get('/v1/ping')
        .set('X-Forwarded-For', `203.0.113.${i}`)
        .set(bearer(unknownKey(i)));
      expect(res.status).toBe(401);
    }
    expect(
      (
        await s.api
          .get('/v1/ping')
          .set('X-Forwarded-For', '203.0.113.251')
          .set(bearer(unknownKey(BUDGET)))
      ).status,
    ).toBe(429);
    expect(
      (
        await s.api
          .get('/v1/ping')
          .set('X-Forwarded-For', '203.0.113.250')
          .set(bearer(unknownKey(0)))
      ).status,
    ).toBe(429);
    expect((await s.api.get('/v1/ping').set('X-Forwarded-For', '203.0.113.250').set(bearer(s.key))).status).toBe(200);
  });
});

const quietLogger = () => createLogger({ level: 'info', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const requestFrom = (ip: string) =>
  ({ ip, socket: {}, res: { locals: {}, setHeader: () => undefined } }) as unknown as Request & { res: Response };
const failure = (throttle: AuthThrottle, ip: string) => {
  try {
    throttle.failed(requestFrom(ip), new ApiError('invalid_api_key'));
  } catch (err) {
    return (err as ApiError).code;
  }
  throw new Error('failed() returned');
};

describe('the throttle window', () => {
  it('when the window has passed, then the address fails with 401 again', async () => {
    const throttle = new AuthThrottle({ logger: quietLogger(), failures: 2, windowSeconds: 1 });
    expect([1, 2, 3, 4].map(() => failure(throttle, '192.0.2.9'))).toEqual([
      'invalid_api_key',
      'invalid_api_key',
      'rate_limited',
      'rate_limited',
    ]);
    await new Promise((r) => setTimeout(r, 1100));
    expect(failure(throttle, '192.0.2.9')).toBe('invalid_api_key');
  });

  it('when AUTH_FAILURES_PER_MIN is 0, then failures are never throttled; it defaults to 60 and must not be negative', () => {
    const throttle = new AuthThrottle({ logger: quietLogger(), failures: 0 });
    expect(new Set(Array.from({ length: 200 }, () => failure(throttle, '192.0.2.10')))).toEqual(
      new Set(['invalid_api_key']),
    );
    expect(throttle.tracked).toBe(0);
    expect(loadConfig({}).AUTH_FAILURES_PER_MIN).toBe(AUTH_FAILURES_PER_WINDOW);
    expect(loadConfig({ AUTH_FAILURES_PER_MIN: '0' }).AUTH_FAILURES_PER_MIN).toBe(0);
    expect(() => loadConfig({ AUTH_FAILURES_PER_MIN: '-1' })).toThrow(ConfigError);
  });
});

describe('the number of addresses counted', () => {
  it('when failures come from many more addresses than the cap, then no more than the cap are tracked', () => {
    const throttle = new AuthThrottle({ logger: quietLogger(), failures: 2, maxTracked: 100 });
    // IPv6 /64 rotation in many /48s, and IPv4 addresses in many /24s.
    for (let i = 0; i < 5_000; i++)
      failure(throttle, `2001:db8:${(i >> 8).toString(16)}:${(i & 0xff).toString(16)}::1`);
    expect(throttle.tracked).toBe(100);
    for (let i = 0; i < 5_000; i++) failure(throttle, `10.${i >> 8}.${i & 0xff}.1`);
    expect(throttle.tracked).toBe(100);
  });

  it('when the table is full, then a new address counts with its /24 (IPv4) or /48 (IPv6) while one already counted keeps its own budget', () => {
    const throttle = new AuthThrottle({ logger: quietLogger(), failures: 2, maxTracked: 10 });
    expect(failure(throttle, '198.51.100.1')).toBe('invalid_api_key');
    for (let i = 0; i < 9; i++) failure(throttle, `10.0.${i}.1`);
    expect(throttle.tracked).toBe(10);
    // Two new addresses of one /24 share a budget of 2.
    expect([failure(throttle, '192.0.2.1'), failure(throttle, '192.0.2.2'), failure(throttle, '192.0.2.3')]).toEqual([
      'invalid_api_key',
      'invalid_api_key',
      'rate_limited',
    ]);
    expect(failure(throttle, '2001:db8:1:1::1')).toBe('invalid_api_key');
    expect(failure(throttle, '2001:db8:1:2::1')).toBe('invalid_api_key');
    expect(failure(throttle, '2001:db8:1:3::1')).toBe('rate_limited');
    expect(throttle.tracked).toBe(10);
  });

  it('the address counted is the IPv4 address, or the IPv6 /64 (IPv4-mapped IPv6 read as IPv4)', () => {
    expect(clientAddress(requestFrom('192.0.2.7'))).toBe('192.0.2.7');
    expect(clientAddress(requestFrom('::ffff:192.0.2.7'))).toBe('192.0.2.7');
    expect(clientAddress(requestFrom('2001:db8:a:b:c:d:e:f'))).toBe('2001:db8:a:b::/64');
  });
});

describe('TRUST_PROXY', () => {
  it('when it is a hop count or a list of addresses, ranges and names, then it is taken; "true" (any client could name itself) is refused', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'uniquelocal' }).TRUST_PROXY).toBe('uniquelocal');
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::1' }).TRUST_PROXY).toBe(
      'loopback, 10.0.0.0/8, fd00::1',
    );
    expect(loadConfig({}).TRUST_PROXY).toBeUndefined();
    for (const bad of ['true', '*', '10.0.0.0/33', 'proxy.example.com']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(ConfigError);
    }
  });
});

import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerAdmin, hashKey } from '../../src/application/partners.js';
import { loadConfig } from '../../src/config.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { http, type Http } from '../support/http.js';
import { demoCatalogWith, newKey, orderBody, REEM } from '../support/orders.js';
import { bearer, tempDataDir } from '../support/service.js';

// The service logs at debug level to a file while keys are used, misused, revoked and refused, an
// order goes through its life and a store fault turns into a 500; then the file is searched for
// every key and token this test made, and for any Authorization header value.

const ADMIN_TOKEN = 'adm_' + 'Zx9'.repeat(10);
const FAILING_KEY_MARK = 'store-fault';

let dataDir: string;
let logFile: string;
let stores: Stores;
let service: Service;
let api: Http;
let admin: PartnerAdmin;
const secrets: string[] = [ADMIN_TOKEN];
let failingHash = '';

beforeAll(async () => {
  dataDir = tempDataDir();
  logFile = path.join(dataDir, 'service.log');
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'debug', SQLITE_SYNCHRONOUS: 'NORMAL', ADMIN_TOKEN });
  const clock = new ManualClock();
  const opened = await openStores(config);
  // A partner store that fails for one key, to see what a 500 during authentication logs.
  const partners = Object.create(opened.partners) as Stores['partners'];
  partners.findKeyByHash = async (hash) => {
    if (hash === failingHash) throw new Error(`${FAILING_KEY_MARK}: database is locked`);
    return opened.partners.findKeyByHash(hash);
  };
  stores = { ...opened, partners };
  const logger = createLogger({ level: 'debug', destination: pino.destination({ dest: logFile, sync: true }) });
  service = await buildService(config, stores, { logger, clock });
  await service.services.catalog.import(demoCatalogWith({ [REEM.store_id]: { auto_accept: false } }));
  api = http(service.app);
  admin = new PartnerAdmin(stores.partners, clock, config.DEFAULT_RATE_LIMIT_PER_MIN);
});
afterAll(async () => {
  await service.stop();
  await stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function partner(input: Parameters<PartnerAdmin['createPartner']>[0]) {
  const { live, sandbox } = await admin.createPartner(input);
  secrets.push(live.key, sandbox.key);
  return { live: live.key, sandbox: sandbox.key, liveId: live.record.id };
}

describe('secrets never reach the log', () => {
  it('after keys, failures and an order flow, the log holds no key, no token and no Authorization value', async () => {
    const a = await partner({ name: 'Logged A' });
    const narrow = await partner({ name: 'Logged B', scopes: ['catalog:read'], rateLimitPerMin: 3 });
    const revoked = await partner({ name: 'Logged C' });
    const failing = await partner({ name: 'Logged D' });
    failingHash = hashKey(failing.sandbox);

    // Keys used well and badly.
    expect((await api.get('/v1/ping').set(bearer(a.live))).status).toBe(200);
    expect((await api.get('/v1/ping').set(bearer(a.sandbox))).status).toBe(200);
    expect((await api.get('/v1/ping')).status).toBe(401);
    // The last character changed (to x, or to y when it is already x: 1 key in 62).
    for (const header of [
      `Bearer ${a.live.slice(0, -1)}${a.live.endsWith('x') ? 'y' : 'x'}`,
      `Bearer\t${a.live}`,
      `Basic ${Buffer.from(`u:${a.live}`).toString('base64')}`,
      a.live,
      `Bearer ${a.live} extra`,
      `Token ${a.sandbox}`,
    ]) {
      expect((await api.get('/v1/ping').set('Authorization', header)).status, header.slice(0, 12)).toBe(401);
    }
    expect((await api.get('/v1/orders').set(bearer(narrow.sandbox))).status).toBe(403);
    for (let i = 0; i < 4; i++) await api.get('/v1/stores').set(bearer(narrow.live));
    expect((await api.get('/v1/stores').set(bearer(narrow.live))).status).toBe(429);
    await admin.revokeKey(revoked.liveId);
    await waitFor(async () => (await api.get('/v1/ping').set(bearer(revoked.live))).status === 401);
    // A key's text inside a body (an unknown field, a reference) is not logged either.
    expect(
      (
        await api
          .post('/v1/orders')
          .set(bearer(a.sandbox))
          .set('Idempotency-Key', newKey())
          .send({ ...orderBody(), api_key: a.live })
      ).status,
    ).toBe(400);
    expect((await api.get(`/v1/orders?reference=${a.live}`).set(bearer(a.sandbox))).status).toBe(200);
    expect((await api.get(`/v1/stores/${a.live}`).set(bearer(a.sandbox))).status).toBe(404);
    // ... nor in a path that fails before routing (wrong method, malformed body).
    expect((await api.delete(`/v1/stores/${a.live}`).set(bearer(a.sandbox))).status).toBe(405);
    expect(
      (
        await api
          .post(`/v1/orders/${a.sandbox}/cancel`)
          .set(bearer(a.sandbox))
          .set('Content-Type', 'application/json')
          .send('{oops')
      ).status,
    ).toBe(400);

    // An order's life, sandbox and live, with the operations API and its token.
    const idem = newKey();
    const placed = await api
      .post('/v1/orders')
      .set(bearer(a.sandbox))
      .set('Idempotency-Key', idem)
      .send(orderBody({ payment_method: 'card' }));
    expect(placed.status).toBe(201);
    expect(
      (
        await api
          .post('/v1/orders')
          .set(bearer(a.sandbox))
          .set('Idempotency-Key', idem)
          .send(orderBody({ payment_method: 'card' }))
      ).status,
    ).toBe(200);
    const link = await api.post(`/v1/orders/${placed.body.data.id}/payment`).set(bearer(a.sandbox));
    expect(link.status).toBe(201);
    expect((await api.post(new URL(link.body.data.url).pathname + '/pay')).status).toBe(200);
    expect((await api.post(`/v1/sandbox/orders/${placed.body.data.id}/advance`).set(bearer(a.sandbox))).status).toBe(
      200,
    );
    const live = await api.post('/v1/orders').set(bearer(a.live)).set('Idempotency-Key', newKey()).send(orderBody());
    expect(live.status).toBe(201);
    expect((await api.post(`/internal/orders/${live.body.data.id}/accept`).set(bearer(ADMIN_TOKEN))).status).toBe(200);
    expect((await api.post(`/internal/orders/${live.body.data.id}/start`).set(bearer(`${ADMIN_TOKEN}x`))).status).toBe(
      401,
    );
    expect(
      (await api.post(`/v1/orders/${live.body.data.id}/cancel`).set(bearer(a.live)).send({ reason: 'changed mind' }))
        .status,
    ).toBe(200);
    expect((await api.get(`/v1/orders/${live.body.data.id}/tracking`).set(bearer(a.live))).status).toBe(200);

    // A store fault while resolving a key: 500, logged as an error.
    expect((await api.get('/v1/ping').set(bearer(failing.sandbox))).status).toBe(500);

    const log = fs.readFileSync(logFile, 'utf8');
    const lines = log
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message?: string } });
    // The log was really written: one line per request (failed authentications after an address's
    // first are counted, not logged one by one: see AuthThrottle), and the fault with its message.
    expect(lines.filter((l) => l.msg === 'request').length).toBeGreaterThan(20);
    expect(lines.some((l) => l.msg.startsWith('authentication failed'))).toBe(true);
    expect(lines.some((l) => l.level >= 50 && JSON.stringify(l).includes(FAILING_KEY_MARK))).toBe(true);

    expect(secrets.length).toBe(9);
    for (const secret of secrets) {
      expect(log.includes(secret), `a secret starting ${secret.slice(0, 12)} is in the log`).toBe(false);
      // Nor a telling part of one (e.g. a key logged with its prefix cut off).
      expect(
        log.includes(secret.slice(-24)),
        `the tail of a secret starting ${secret.slice(0, 12)} is in the log`,
      ).toBe(false);
    }
    expect(log).not.toMatch(/bearer /i);
    expect(log).not.toMatch(/authorization/i);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

import fs from 'node:fs';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { createLogger } from '../../src/shared/logger.js';
import { ManualClock } from '../../src/shared/clock.js';
import { PartnerAdmin } from '../../src/application/partners.js';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, tempDataDir, type TestPartner, type TestService } from '../support/service.js';
import { placeOrder } from '../support/orders.js';
import { register, startReceiver, startWebhookService, type Receiver } from './webhooks-fixture.js';
import { CONSOLE_COOKIE } from '../../src/http/console/router.js';
import { streamsPage } from '../../src/http/console/pages.js';

// The operators' console, without a browser: who gets in, what a change needs, what pages never
// show. test/browser/console.test.ts drives the same pages in Chromium.

const ADMIN_TOKEN = 'console-test-admin-token-0123456789abcdef';

/** The session cookie of a successful login, and the CSRF token of the page it lands on. */
async function login(app: Parameters<typeof supertest.agent>[0]) {
  const agent = supertest.agent(app);
  const res = await agent.post('/console/login').type('form').send({ token: ADMIN_TOKEN });
  expect(res.status).toBe(303);
  const page = await agent.get('/console/partners');
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  expect(csrf).toBeTruthy();
  return { agent, csrf: csrf!, setCookie: res.headers['set-cookie'] as unknown as string[] };
}

describe('console when ADMIN_TOKEN is not set', () => {
  let t: TestService;
  beforeAll(async () => (t = await startTestService()));
  afterAll(() => t.close());

  it('when any console path is asked for, then it is 404 as any unknown path', async () => {
    for (const path of ['/console', '/console/login', '/console/orders', '/console/assets/console.js']) {
      expect((await supertest(t.service.app.express).get(path)).status, path).toBe(404);
    }
    // A form post is the API's to refuse (it takes JSON only): its envelope, no console page, no cookie.
    const post = await supertest(t.service.app.express).post('/console/login').type('form').send({ token: 'x' });
    expect(post.status).toBe(415);
    expect(post.headers['content-type']).toMatch(/^application\/json/);
    expect(post.headers['set-cookie']).toBeUndefined();
    const json = await supertest(t.service.app.express).post('/console/login').send({ token: 'x' });
    expect(json.status).toBe(404);
  });
});

describe('console with ADMIN_TOKEN', () => {
  let t: Awaited<ReturnType<typeof startWebhookService>>;
  let partner: TestPartner;
  let receiver: Receiver;
  let secret: string;
  let app: TestService['service']['app']['express'];

  beforeAll(async () => {
    t = await startWebhookService({ env: { ADMIN_TOKEN, AUTH_FAILURES_PER_MIN: '3', TRUST_PROXY: 'loopback' } });
    app = t.service.app.express;
    partner = await t.partner('Console Partner');
    receiver = await startReceiver();
    secret = await register(t, partner.sandbox, receiver.url);
    expect((await placeOrder(t.http, partner.sandbox, { reference: 'console-ref-1' })).status).toBe(201);
    await receiver.waitFor(1);
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('when there is no session, then pages redirect to the login and changes are refused with 401', async () => {
    const page = await supertest(app).get('/console/orders');
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/console/login');
    const revoke = await supertest(app)
      .post(`/console/keys/${partner.liveKeyId}/revoke`)
      .type('form')
      .send({ csrf: 'x' });
    expect(revoke.status).toBe(401);
    expect((await t.stores.partners.listKeys(partner.id)).every((k) => k.revoked_at === null)).toBe(true);
    // A made-up cookie is no session either.
    const forged = await supertest(app).get('/console/orders').set('Cookie', `${CONSOLE_COOKIE}=forged`);
    expect(forged.status).toBe(303);
  });

  it('when the assets are asked for, then mermaid comes gzipped from node_modules, revalidated by ETag; other names are 404', async () => {
    const mermaid = await supertest(app).get('/console/assets/mermaid.js').set('Accept-Encoding', 'gzip');
    expect(mermaid.status).toBe(200);
    expect(mermaid.headers['content-encoding']).toBe('gzip');
    expect(mermaid.headers['content-type']).toMatch(/^text\/javascript/);
    const etag = mermaid.headers.etag as string;
    const again = await supertest(app).get('/console/assets/mermaid.js').set('If-None-Match', etag);
    expect(again.status).toBe(304);
    const script = await supertest(app).get('/console/assets/console.js');
    expect(script.status).toBe(200);
    expect(script.text).toContain('replay-data');
    for (const name of ['nope.js', '..%2Fpackage.json', 'constructor'])
      expect((await supertest(app).get(`/console/assets/${name}`)).status, name).toBe(404);
  });

  it('when the login page is served, then it carries the CSP, no-store and frame refusals', async () => {
    const res = await supertest(app).get('/console/login');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).not.toMatch(/<script>/); // no inline script
  });

  it('when the login succeeds, then the cookie is HttpOnly, SameSite=Strict, Path=/console, and Secure over HTTPS', async () => {
    const { setCookie } = await login(app);
    const cookie = setCookie.find((c) => c.startsWith(`${CONSOLE_COOKIE}=`))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\/console/);
    expect(cookie).not.toMatch(/; Secure/);
    expect(cookie).not.toContain(ADMIN_TOKEN);
    // Behind a trusted proxy that terminated TLS (TRUST_PROXY=loopback here).
    const https = await supertest(app)
      .post('/console/login')
      .set('X-Forwarded-Proto', 'https')
      .type('form')
      .send({ token: ADMIN_TOKEN });
    expect(https.headers['set-cookie']![0]).toMatch(/; Secure/);
  });

  it('when a wrong token is sent, then 401 with no cookie, and past AUTH_FAILURES_PER_MIN 429; the right token still gets in', async () => {
    const wrong = () =>
      supertest(app).post('/console/login').set('X-Forwarded-For', '203.0.113.9').type('form').send({ token: 'nope' });
    for (let i = 0; i < 3; i++) {
      const res = await wrong();
      expect(res.status).toBe(401);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.text).toContain('That is not the admin token.');
    }
    const throttled = await wrong();
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    const right = await supertest(app)
      .post('/console/login')
      .set('X-Forwarded-For', '203.0.113.9')
      .type('form')
      .send({ token: ADMIN_TOKEN });
    expect(right.status).toBe(303);
  });

  it('when an action comes without the session CSRF token, then 403 and nothing changes; with it, the key is revoked', async () => {
    const { agent, csrf } = await login(app);
    const other = await login(app);
    expect(other.csrf).not.toBe(csrf);
    const revoke = (body: { csrf?: string }) =>
      agent.post(`/console/keys/${partner.liveKeyId}/revoke`).type('form').send(body);
    const head = await t.stores.events.headPosition();
    for (const body of [{}, { csrf: 'wrong' }, { csrf: other.csrf }, { csrf: csrf.slice(0, -1) }]) {
      const res = await revoke(body);
      expect(res.status, JSON.stringify(body)).toBe(403);
    }
    const rebuild = await agent.post('/console/read-side/orders-list/rebuild').type('form').send({ csrf: 'wrong' });
    expect(rebuild.status).toBe(403);
    expect(
      (await t.stores.partners.listKeys(partner.id)).find((k) => k.id === partner.liveKeyId)!.revoked_at,
    ).toBeNull();
    expect(await t.stores.events.headPosition()).toBe(head);

    const done = await revoke({ csrf });
    expect(done.status).toBe(303);
    expect(
      (await t.stores.partners.listKeys(partner.id)).find((k) => k.id === partner.liveKeyId)!.revoked_at,
    ).not.toBeNull();
  });

  it('when any action is posted without the CSRF token, then each is 403 and the log does not move', async () => {
    const { agent } = await login(app);
    const head = await t.stores.events.headPosition();
    for (const path of [
      '/console/deliveries/whd_x/redeliver',
      '/console/read-side/orders-list/rebuild',
      '/console/read-side/audit',
      `/console/keys/${partner.sandboxKeyId}/revoke`,
      '/console/logout',
    ]) {
      const res = await agent.post(path).type('form').send({ order_id: 'x' });
      expect(res.status, path).toBe(403);
    }
    expect(await t.stores.events.headPosition()).toBe(head);
    // Still logged in: the refused log-out did nothing.
    expect((await agent.get('/console/orders')).status).toBe(200);
  });

  it('when every page is read, then no API key, key hash, webhook secret or admin token appears in any of them', async () => {
    const { agent } = await login(app);
    const keys = await t.stores.partners.listKeys(partner.id);
    const secrets = [partner.live, partner.sandbox, secret, ADMIN_TOKEN, ...keys.map((k) => k.key_hash)];
    const orderId = (await t.stores.events.listStreams({ prefix: 'order-' }))[0]!.streamId.slice('order-'.length);
    const streams = (await t.stores.events.listStreams({ limit: 1000 })).map((s) => s.streamId);
    const paths = [
      '/console/orders',
      '/console/orders?q=console-ref-1',
      `/console/orders?partner=${partner.id}`,
      `/console/orders/${orderId}`,
      '/console/streams',
      ...streams.map((s) => `/console/streams/${encodeURIComponent(s)}`),
      '/console/read-side',
      '/console/read-side/status',
      '/console/partners',
    ];
    for (const path of paths) {
      const res = await agent.get(path);
      expect(res.status, path).toBe(200);
      for (const s of secrets) expect(res.text, `${path} shows a secret`).not.toContain(s);
      expect(res.headers['cache-control'], path).toBe('no-store');
    }
    // The key hints are there instead (prefix and last four characters).
    expect((await agent.get('/console/partners')).text).toContain(partner.sandbox.slice(-4));
  });

  it('when the search term is an order number, a partner reference or a partner id, then the order is listed', async () => {
    const { agent } = await login(app);
    const order = (await t.stores.events.listStreams({ prefix: 'order-' }))[0]!.streamId.slice('order-'.length);
    const stored = await t.service.services.readModels.store.get<{ order_number: string }>('orders', order);
    for (const [q, match] of [
      [stored!.doc.order_number, 'order number'],
      ['console-ref-1', 'partner reference'],
      [partner.id, 'partner'],
    ]) {
      const res = await agent.get(`/console/orders?q=${encodeURIComponent(q!)}`);
      expect(res.text, q).toContain(`Orders whose ${match} is`);
      expect(res.text, q).toContain(`/console/orders/${order}`);
    }
    const byId = await agent.get(`/console/orders?q=${order}`);
    expect(byId.status).toBe(303);
    expect(byId.headers.location).toBe(`/console/orders/${order}`);
    expect((await agent.get('/console/orders?q=nothing-like-this')).text).toContain('No order matches');
  });

  it('when a value from the data holds markup, then the page shows it as text', async () => {
    const { agent } = await login(app);
    const res = await placeOrder(t.http, partner.sandbox, { reference: '<img src=x onerror=alert(1)>' });
    expect(res.status).toBe(201);
    const page = await agent.get(`/console/orders/${res.body.data.id as string}`);
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('console audit', () => {
  let t: TestService;
  beforeAll(async () => (t = await startTestService({ env: { ADMIN_TOKEN } })));
  afterAll(() => t.close());

  it('when a served document was tampered with, then audit verify from the console lists the field that differs', async () => {
    const partner = await t.partner();
    const placed = await placeOrder(t.http, partner.sandbox);
    expect(placed.status).toBe(201);
    const id = placed.body.data.id as string;
    const { agent, csrf } = await login(t.service.app.express);
    const clean = await agent.post('/console/read-side/audit').type('form').send({ csrf });
    expect(clean.text).toMatch(/id="audit-verdict">\s*OK: /);

    const store = t.service.services.readModels.store;
    await t.service.services.readModels.catchUp('orders-list');
    const stored = (await store.get<{ status: string }>('orders', id))!;
    expect(await store.put('orders', { ...stored, doc: { ...stored.doc, status: 'delivered' } }, stored.seq)).toBe(
      true,
    );
    const tampered = await agent.post('/console/read-side/audit').type('form').send({ csrf });
    expect(tampered.status).toBe(200);
    expect(tampered.text).toMatch(/id="audit-verdict">\s*FAILED: 1 difference/);
    expect(tampered.text).toContain(`orders/${id}`);
    expect(tampered.text).toContain(
      `<code>doc.status</code>: replay <code>&quot;${stored.doc.status}&quot;</code>, served <code>&quot;delivered&quot;</code>`,
    );
  });
});

describe('console order page of a refused history', () => {
  let t: TestService;
  beforeAll(async () => (t = await startTestService({ env: { ADMIN_TOKEN } })));
  afterAll(() => t.close());

  it('when the machine refuses an order stream from its first event, then the page shows the events and the refusal', async () => {
    await t.stores.events.append(
      'order-ord_refused1',
      [
        {
          type: 'OrderAccepted',
          data: { at: '2026-11-21T12:00:00.000Z' },
          metadata: { actor: 'support', schema_version: 1 },
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const { agent } = await login(t.service.app.express);
    const page = await agent.get('/console/orders/ord_refused1');
    expect(page.status).toBe(200);
    expect(page.text).toContain('The order machine refuses this history from its first event.');
    expect(page.text).toMatch(/refused: /);
    expect((await agent.get('/console/orders/ord_nothing_here')).status).toBe(404);
  });
});

describe('console recent orders', () => {
  let t: TestService;
  beforeAll(async () => (t = await startTestService({ env: { ADMIN_TOKEN } })));
  afterAll(() => t.close());

  it('when there are more recent orders than a page, then "Older orders" pages through all of them once', async () => {
    const partner = await t.partner();
    const placed = new Set<string>();
    for (let i = 0; i < 52; i++) {
      const res = await placeOrder(t.http, partner.sandbox);
      expect(res.status).toBe(201);
      placed.add(res.body.data.id as string);
    }
    const { agent } = await login(t.service.app.express);
    const seen: string[] = [];
    let url: string | undefined = `/console/orders?environment=sandbox&partner=${partner.id}`;
    while (url) {
      const page = await agent.get(url);
      expect(page.status).toBe(200);
      seen.push(...[...page.text.matchAll(/<a href="\/console\/orders\/([^"]+)" class="mono">/g)].map((m) => m[1]!));
      url = /<a href="(\/console\/orders\?[^"]*starting_after=[^"]+)">Older orders<\/a>/
        .exec(page.text)?.[1]
        ?.replace(/&amp;/g, '&');
    }
    expect(seen).toHaveLength(52);
    expect(new Set(seen)).toEqual(placed);
    const none = await agent.get('/console/orders?environment=live');
    expect(none.text).toContain('No orders.');
  });
});

describe('console logging', () => {
  const lines: LogLine[] = [];
  let dataDir: string;
  let stores: Stores;
  let service: Service;

  beforeAll(async () => {
    dataDir = tempDataDir();
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info', SQLITE_SYNCHRONOUS: 'NORMAL', ADMIN_TOKEN });
    stores = await openStores(config);
    const logger = createLogger({ level: 'info', destination: jsonLineSink(lines) });
    service = await buildService(config, stores, { logger, clock: new ManualClock() });
  });
  afterAll(async () => {
    await service.stop();
    await stores.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("when an operator acts, then each request and the action are logged with the session's log id, never its cookie", async () => {
    const admin = new PartnerAdmin(stores.partners, new ManualClock(), 60);
    const { live } = await admin.createPartner({ name: 'Logged Partner' });
    const { agent, csrf, setCookie } = await login(service.app.express);
    const cookie = /^[^=]+=([^;]+)/.exec(setCookie[0]!)![1]!;
    expect((await agent.post(`/console/keys/${live.record.id}/revoke`).type('form').send({ csrf })).status).toBe(303);
    const action = lines.find((l) => l.action === 'revoke key');
    expect(action).toMatchObject({ key_id: live.record.id, console_session: expect.stringMatching(/^cs_/) });
    const sessionId = action!.console_session;
    const requests = lines.filter(
      (l) => l.msg === 'request' && typeof l.route === 'string' && l.route.includes('/console'),
    );
    expect(requests.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.console_session === sessionId && l.msg === 'request').length).toBeGreaterThanOrEqual(
      2,
    );
    const all = JSON.stringify(lines);
    expect(all).not.toContain(cookie);
    expect(all).not.toContain(ADMIN_TOKEN);
    expect(all).not.toContain(csrf);
  });
});

describe('console streams page with EventStoreDB', () => {
  it("when EVENTSTORE_UI_URL is configured, then the streams page links EventStoreDB's own UI", () => {
    const page = streamsPage('csrf-token', '', 100, [], 'http://esdb.internal:2113/web/');
    expect(page).toContain('<a href="http://esdb.internal:2113/web/">');
    expect(streamsPage('csrf-token', '', 100, [])).not.toContain('EventStoreDB');
  });
});

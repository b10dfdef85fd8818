import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { createLogger } from '../../src/shared/logger.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { ManualClock } from '../../src/shared/clock.js';
import { PartnerAdmin } from '../../src/application/partners.js';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, tempDataDir, type TestPartner, type TestService } from '../support/service.js';
import { placeOrder } from '../support/orders.js';
import { waitFor } from '../support/wait.js';
import { register, startReceiver, startWebhookService, type Receiver } from './webhooks-fixture.js';
import { CONSOLE_COOKIE } from '../../src/http/console/router.js';
import { AUDIT_STREAM } from '../../src/application/audit/audit-job.js';
import { streamsPage } from '../../src/http/console/pages.js';
import { MERMAID } from '../../src/http/console/assets.js';
import { prepareConsoleAssets } from '../../src/http/console/prepare-assets.js';
import { EsdbStandIn } from '../support/esdb-stand-in.js';

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
    // A form post is the API's to refuse, as an unknown path (its body unread): its envelope, no console page, no cookie.
    const post = await supertest(t.service.app.express).post('/console/login').type('form').send({ token: 'x' });
    expect(post.status).toBe(404);
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
    expect(page.headers.location).toBe('/console/login?next=%2Fconsole%2Forders');
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

  it("when the assets are asked for, then mermaid streams from disk to a logged-in operator only, from the build's copies (gzipped when accepted), each body with its own ETag; other names are 404", async () => {
    await prepareConsoleAssets(); // what `npm run build` does
    const anonymous = await supertest(app).get('/console/assets/mermaid.js').set('Accept-Encoding', 'gzip');
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain('mermaid');
    const { agent } = await login(app);
    const mermaid = await agent.get('/console/assets/mermaid.js').set('Accept-Encoding', 'gzip');
    expect(mermaid.status).toBe(200);
    expect(mermaid.headers['content-encoding']).toBe('gzip');
    expect(mermaid.headers['content-type']).toMatch(/^text\/javascript/);
    expect(mermaid.headers['cache-control']).toBe('no-cache');
    expect(Number(mermaid.headers['content-length'])).toBe(fs.statSync(MERMAID.gzipped).size);
    const etag = mermaid.headers.etag as string;
    const again = await agent
      .get('/console/assets/mermaid.js')
      .set('Accept-Encoding', 'gzip')
      .set('If-None-Match', etag);
    expect(again.status).toBe(304);
    const plain = await agent.get('/console/assets/mermaid.js').set('Accept-Encoding', 'identity');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    // The build's plain copy, byte for byte the package's bundle: a production install has no mermaid package.
    expect(MERMAID.plain()).toBe(MERMAID.built);
    expect(fs.readFileSync(MERMAID.built).equals(fs.readFileSync(MERMAID.source()))).toBe(true);
    expect(Number(plain.headers['content-length'])).toBe(fs.statSync(MERMAID.built).size);
    expect(plain.headers.etag).toBeTruthy();
    expect(plain.headers.etag).not.toBe(etag);
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

  it('when the login succeeds, then the cookie is HttpOnly, SameSite=Lax, Path=/console, and Secure over HTTPS', async () => {
    const { setCookie } = await login(app);
    const cookie = setCookie.find((c) => c.startsWith(`${CONSOLE_COOKIE}=`))!;
    expect(cookie).toMatch(/; HttpOnly/);
    // Lax: a link from another site carries it; a form from another site does not (and needs the CSRF token anyway).
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\/console/);
    expect(cookie).not.toMatch(/; Secure/);
    expect(cookie).not.toContain(ADMIN_TOKEN);
    // An absolute expiry, 8 hours from the login (the test service's clock).
    expect(cookie).toMatch(/; Expires=/);
    // Behind a trusted proxy that terminated TLS (TRUST_PROXY=loopback here).
    const https = await supertest(app)
      .post('/console/login')
      .set('X-Forwarded-Proto', 'https')
      .type('form')
      .send({ token: ADMIN_TOKEN });
    expect(https.headers['set-cookie']![0]).toMatch(/; Secure/);
  });

  it('when a wrong token is sent, then 401 with no cookie; past AUTH_FAILURES_PER_MIN every login is 429, the right token too', async () => {
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
    // Throttled, the token is not even compared: the right one gets the same answer as a wrong one.
    const right = await supertest(app)
      .post('/console/login')
      .set('X-Forwarded-For', '203.0.113.9')
      .type('form')
      .send({ token: ADMIN_TOKEN });
    expect(right.status).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    expect(right.headers['set-cookie']).toBeUndefined();
    const seconds = (text: string) => text.replace(/retry after \d+ s/, 'retry after N s');
    expect(seconds(right.text)).toBe(seconds(throttled.text));
    // Another address is not throttled; the token is taken as typed (not trimmed).
    const padded = await supertest(app)
      .post('/console/login')
      .set('X-Forwarded-For', '203.0.113.10')
      .type('form')
      .send({ token: ` ${ADMIN_TOKEN}` });
    expect(padded.status).toBe(401);
    const other = await supertest(app)
      .post('/console/login')
      .set('X-Forwarded-For', '203.0.113.11')
      .type('form')
      .send({ token: ADMIN_TOKEN });
    expect(other.status).toBe(303);
  });

  it('when a page is opened without a session, then the login goes on to it, and to nothing outside the console', async () => {
    const asked = '/console/orders/ord_linked?after=0';
    const away = await supertest(app).get(asked);
    expect(away.status).toBe(303);
    expect(away.headers.location).toBe(`/console/login?next=${encodeURIComponent(asked)}`);
    const form = await supertest(app).get(away.headers.location as string);
    expect(form.text).toContain(`<input type="hidden" name="next" value="${asked.replace('&', '&amp;')}" />`);
    // A wrong token keeps where to go; the right one goes there.
    const wrong = await supertest(app)
      .post('/console/login')
      .set('X-Forwarded-For', '203.0.113.20')
      .type('form')
      .send({ token: 'nope', next: asked });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain(`name="next" value="${asked}"`);
    const right = await supertest(app).post('/console/login').type('form').send({ token: ADMIN_TOKEN, next: asked });
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe(asked);

    // Anything but a console path of this origin goes to the orders page: no open redirect.
    for (const next of [
      'https://evil.example/console/orders',
      '//evil.example/console/orders',
      '/\\evil.example/console/orders',
      '/\t/evil.example/console/orders',
      '/%2F%2Fevil.example/console',
      '/console/../internal/orders',
      '/console/%2e%2e/internal/orders',
      '/consolex',
      'javascript:alert(1)',
      '/console/login?next=//evil.example',
    ]) {
      const res = await supertest(app).post('/console/login').type('form').send({ token: ADMIN_TOKEN, next });
      expect(res.status, next).toBe(303);
      expect(res.headers.location, next).toBe('/console/orders');
      const page = await supertest(app).get(`/console/login?next=${encodeURIComponent(next)}`);
      expect(page.text, next).not.toContain('name="next"');
    }
  });

  it("when a partner's client keeps failing from the operators' address, then the console login still works there", async () => {
    const badKey = () =>
      supertest(app)
        .get('/v1/ping')
        .set('X-Forwarded-For', '203.0.113.12')
        .set('Authorization', `Bearer svc_test_${'x'.repeat(43)}`);
    for (let i = 0; i < 3; i++) expect((await badKey()).status).toBe(401);
    expect((await badKey()).status).toBe(429);
    const login = await supertest(app)
      .post('/console/login')
      .set('X-Forwarded-For', '203.0.113.12')
      .type('form')
      .send({ token: ADMIN_TOKEN });
    expect(login.status).toBe(303);
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

  it("when a page comes with an action's notice (?done=), then it shows it only when reached from the console itself", async () => {
    const { agent } = await login(app);
    const notice = 'Key revoked: requests with it are refused';
    const page = (site?: string) => {
      const req = agent.get('/console/partners?done=revoked');
      return (site ? req.set('Sec-Fetch-Site', site) : req).then((r) => r.text);
    };
    expect(await page('same-origin')).toContain(notice);
    expect(await page()).toContain(notice); // a browser that sends no Sec-Fetch-Site
    for (const site of ['cross-site', 'same-site', 'none']) expect(await page(site), site).not.toContain(notice);
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
    // Money with the currency's decimals, as the API's messages and the checkout page show it.
    const page = await agent.get(`/console/orders/${order}`);
    const total = (await t.http.get(`/v1/orders/${order}`).set(bearer(partner.sandbox))).body.data.pricing.total;
    expect(page.text).toContain(`<dd id="as-of-total">${(total as number).toFixed(3)} KWD</dd>`);
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

describe('console forms with Expect: 100-continue', () => {
  let t: TestService;
  let server: http.Server;
  beforeAll(async () => {
    t = await startTestService({ env: { ADMIN_TOKEN } });
    server = createHttpServer(t.service.app.express, { logger: createLogger({ level: 'silent', pretty: false }) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  /** Sends the login's headers, and `body` only once the server answers 100 Continue; everything it wrote. */
  const login = (
    body: string,
    length = Buffer.byteLength(body),
    extra = 'Expect: 100-continue\r\nConnection: close\r\n',
  ) =>
    new Promise<string>((resolve) => {
      const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
      let text = '';
      socket.on('connect', () =>
        socket.write(
          'POST /console/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
            `Content-Length: ${length}\r\n${extra}\r\n`,
        ),
      );
      socket.on('data', (d) => {
        const first = !text.startsWith('HTTP/1.1 100');
        text += d.toString('utf8');
        if (first && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) socket.write(body);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
    });

  it('when the form fits, then 100 Continue, then the login reads it and signs in', async () => {
    const text = await login(`token=${ADMIN_TOKEN}`);
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 303 /);
  });

  it('when the form is declared over 8 KB, then 413 at once, no 100 Continue, nothing read', async () => {
    const text = await login('token=x', 20_000);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).not.toContain('100 Continue');
    expect(text).toContain('The request body exceeds the limit of 8192 bytes.');
  });

  it('when a form is declared over 8 KB without the expectation, then 413 at once and the connection closed, the rest unread', async () => {
    const text = await login('token=x', 100_000, '');
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain('connection: close');
  });
});

describe('console audit', () => {
  let t: TestService;
  /** While set, a console audit waits for it before it runs (the job's gate). */
  let hold: (() => Promise<void>) | undefined;
  beforeAll(
    async () => (t = await startTestService({ env: { ADMIN_TOKEN }, auditGate: () => hold?.() ?? Promise.resolve() })),
  );
  afterAll(() => t.close());

  /** Starts an audit, waits for the job to end (no sleep: its own promise), and reads its page. */
  async function audit(agent: ReturnType<typeof supertest.agent>, csrf: string) {
    const started = await agent.post('/console/read-side/audit').type('form').send({ csrf });
    expect(started.status).toBe(303);
    expect(started.headers.location).toBe('/console/read-side?done=audit-started');
    await t.service.audit.settled();
    expect((await agent.get('/console/read-side/audit')).body).toMatchObject({ state: 'done' });
    return agent.get('/console/read-side');
  }

  it('when an audit is running, then the page says since when, and a second start is refused with a notice', async () => {
    const { agent, csrf } = await login(t.service.app.express);
    let release!: () => void;
    let runs = 0;
    hold = () => {
      runs++;
      return new Promise<void>((resolve) => (release = resolve));
    };
    try {
      const first = await agent.post('/console/read-side/audit').type('form').send({ csrf });
      expect(first.headers.location).toBe('/console/read-side?done=audit-started');
      const status = (await agent.get('/console/read-side/audit')).body as { state: string; started_at: string };
      expect(status.state).toBe('running');
      const running = await agent.get('/console/read-side');
      expect(running.text).toContain(`Audit running since ${status.started_at}`);
      expect(running.text).toContain('data-audit-poll="/console/read-side/audit"');

      const second = await agent.post('/console/read-side/audit').type('form').send({ csrf });
      expect(second.status).toBe(303);
      expect(second.headers.location).toBe('/console/read-side?done=audit-running');
      expect((await agent.get(second.headers.location as string)).text).toContain('An audit is already running');
      expect((await agent.get('/console/read-side/audit')).body).toEqual(status);
      expect(runs).toBe(1);
    } finally {
      release();
      await t.service.audit.settled();
      hold = undefined;
    }
    expect(runs).toBe(1);
    const done = await agent.get('/console/read-side');
    expect(done.text).toMatch(/id="audit-verdict">\s*OK: /);
    expect(done.text).not.toContain('data-audit-poll');
  });

  it('when a served document was tampered with, then audit verify from the console lists the field that differs', async () => {
    const partner = await t.partner();
    const placed = await placeOrder(t.http, partner.sandbox);
    expect(placed.status).toBe(201);
    const id = placed.body.data.id as string;
    const { agent, csrf } = await login(t.service.app.express);
    const clean = await audit(agent, csrf);
    expect(clean.text).toMatch(/id="audit-verdict">\s*OK: /);

    const store = t.service.services.readModels.store;
    await t.service.services.readModels.catchUp('orders-list');
    const stored = (await store.get<{ status: string }>('orders', id))!;
    expect(await store.put('orders', { ...stored, doc: { ...stored.doc, status: 'delivered' } }, stored.seq)).toBe(
      true,
    );
    const tampered = await audit(agent, csrf);
    expect(tampered.status).toBe(200);
    expect(tampered.text).toMatch(/id="audit-verdict">\s*FAILED: 1 difference/);
    expect(tampered.text).toContain(`orders/${id}`);
    expect(tampered.text).toContain(
      `<code>doc.status</code>: replay <code>&quot;${stored.doc.status}&quot;</code>, served <code>&quot;delivered&quot;</code>`,
    );
  });
});

describe('console audit across replicas', () => {
  // Two replicas on one DATA_DIR: one event log, each with its own read models.
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    a = await startTestService({ env: { ADMIN_TOKEN } });
    b = await startTestService({ env: { ADMIN_TOKEN }, dataDir: a.dataDir });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('when one replica has run an audit, then the other shows its outcome and names the replica that ran it', async () => {
    expect((await (await login(b.service.app.express)).agent.get('/console/read-side')).text).toContain(
      'No audit has run from the console yet.',
    );
    const { agent, csrf } = await login(a.service.app.express);
    expect((await agent.post('/console/read-side/audit').type('form').send({ csrf })).status).toBe(303);
    await a.service.audit.settled();

    const other = (await login(b.service.app.express)).agent;
    const status = (await other.get('/console/read-side/audit')).body as { state: string; replica: string };
    expect(status.state).toBe('done');
    expect(status.replica).toBe(a.service.metrics.replica);
    const page = await other.get('/console/read-side');
    expect(page.text).toContain(`on replica <span class="mono">${a.service.metrics.replica}</span>, finished at`);
    expect(page.text).toMatch(/id="audit-verdict">\s*OK: \d+ read models equal the replay/);
  });

  it('when the replica running an audit is a process of this host that has ended, then the others show the audit failed', async () => {
    const gone = `${os.hostname()}/2147483646/0badc0de`;
    await a.stores.events.append(
      AUDIT_STREAM,
      [
        {
          type: 'AuditStarted',
          data: { started_at: '2026-11-24T10:00:00.000Z', by: 'c0ffee', replica: gone },
          metadata: { actor: 'support', schema_version: 1 },
        },
      ],
      { expectedRevision: 'any' },
    );
    const { agent } = await login(b.service.app.express);
    expect((await agent.get('/console/read-side/audit')).body).toMatchObject({ state: 'failed', replica: gone });
    expect((await agent.get('/console/read-side')).text).toContain('the replica running it stopped before it finished');
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

describe('console read side with a parked event', () => {
  let t: TestService;
  beforeAll(async () => (t = await startTestService({ env: { ADMIN_TOKEN } })));
  afterAll(() => t.close());

  it('when the webhook dispatcher parks an event written without its partner, then the read side lists it and links its stream', async () => {
    const partner = await t.partner({ name: 'Parked Partner' });
    const placed = await placeOrder(t.http, partner.sandbox);
    expect(placed.status).toBe(201);
    const orderId = placed.body.data.id as string;
    // Another tool (a migration script, say) accepts the order without the metadata the service
    // writes: the machine allows the step, but nobody can say whose webhook it is, so the
    // dispatcher parks it for an operator.
    const [placedEvent] = await t.stores.events.readStream(`order-${orderId}`);
    await t.stores.events.append(
      `order-${orderId}`,
      [{ type: 'OrderAccepted', data: { at: '2026-11-24T12:00:00.000Z' }, metadata: { schema_version: 1 } }],
      { expectedRevision: placedEvent!.revision },
    );
    const parked = await waitFor(
      async () => {
        const events = await t.service.webhooks.dispatcher.parked();
        return events.length ? events : undefined;
      },
      { what: 'the dispatcher to park the event' },
    );
    expect(parked.map((e) => [e.streamId, e.revision, e.type])).toEqual([[`order-${orderId}`, 1, 'OrderAccepted']]);

    const { agent } = await login(t.service.app.express);
    const page = await agent.get('/console/read-side');
    expect(page.status).toBe(200);
    const row = /<tr>\s*<t[dh][^>]*>webhook-dispatcher<\/t[dh]>[\s\S]*?<\/tr>/.exec(page.text)?.[0];
    expect(row, 'the dispatcher row').toBeTruthy();
    expect(row).toMatch(new RegExp(`href="/console/streams/order-${orderId}\\?from=1&(amp;)?count=1"`));
    expect(row).toContain('OrderAccepted');
    const stream = await agent.get(`/console/streams/order-${orderId}?from=1&count=1`);
    expect(stream.status).toBe(200);
    expect(stream.text).toContain('OrderAccepted');
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

describe('console search when a reference is another kind of term', () => {
  let t: TestService;
  beforeAll(async () => (t = await startTestService({ env: { ADMIN_TOKEN } })));
  afterAll(() => t.close());

  it("when a partner uses another partner's id as its reference, then a search for that id shows both kinds, the partner's orders first", async () => {
    const victim = await t.partner({ name: 'Searched Partner' });
    const other = await t.partner({ name: 'Shadowing Partner' });
    const own = await placeOrder(t.http, victim.sandbox, { reference: 'own-ref' });
    const shadow = await placeOrder(t.http, other.sandbox, { reference: victim.id });
    expect([own.status, shadow.status]).toEqual([201, 201]);
    const { agent } = await login(t.service.app.express);

    const page = (await agent.get(`/console/orders?q=${victim.id}`)).text;
    const partnerHeading = page.indexOf(
      `<h2 id="match-partner" class="wrap">Orders whose partner is “${victim.id}”</h2>`,
    );
    const referenceHeading = page.indexOf(
      `<h2 id="match-partner-reference" class="wrap">Orders whose partner reference is “${victim.id}”</h2>`,
    );
    expect(partnerHeading).toBeGreaterThan(0);
    expect(referenceHeading).toBeGreaterThan(partnerHeading);
    const ownLink = page.indexOf(`/console/orders/${own.body.data.id as string}"`);
    const shadowLink = page.indexOf(`/console/orders/${shadow.body.data.id as string}"`);
    expect(ownLink).toBeGreaterThan(partnerHeading);
    expect(ownLink).toBeLessThan(referenceHeading);
    expect(shadowLink).toBeGreaterThan(referenceHeading);
    // The page says first that the term matched two kinds, with links to each.
    expect(page.indexOf('matches 2 kinds')).toBeLessThan(partnerHeading);
    expect(page).toContain('href="#match-partner"');
    expect(page).toContain('href="#match-partner-reference"');

    // One kind alone: its heading, no note.
    const single = (await agent.get('/console/orders?q=own-ref')).text;
    expect(single).toContain('Orders whose partner reference is “own-ref”');
    expect(single).not.toContain('kinds:');
  });
});

describe('console order with many webhook deliveries', () => {
  let t: Awaited<ReturnType<typeof startWebhookService>>;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startWebhookService({ env: { ADMIN_TOKEN } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('when an order has more deliveries than a page, then "Older deliveries" pages through every one once, and a redelivery comes back to its page', async () => {
    const partner = await t.partner('Failing Cards Partner');
    await register(t, partner.sandbox, receiver.url);
    const placed = await placeOrder(t.http, partner.sandbox, { payment_method: 'card' });
    expect(placed.status).toBe(201);
    const orderId = placed.body.data.id as string;
    // More than the 100 the page once showed: every failed card payment is a webhook of its own.
    for (let i = 0; i < 101; i++) {
      const failed = await t.http
        .post(`/v1/sandbox/orders/${orderId}/simulate`)
        .set(bearer(partner.sandbox))
        .send({ action: 'payment_failed' });
      expect(failed.status).toBe(200);
    }
    await receiver.waitFor(102);
    const { agent, csrf } = await login(t.service.app.express);

    const deliveriesOn = (text: string) => [...text.matchAll(/data-delivery="([^"]+)"/g)].map((m) => m[1]!);
    const older = (text: string) =>
      /<a href="(\/console\/orders\/[^"?]+\?deliveries_after=[^"]+)"\s*>Older deliveries/.exec(text)?.[1];
    const pages: string[][] = [];
    const urls: string[] = [];
    let url: string | undefined = `/console/orders/${orderId}`;
    while (url) {
      const page = await agent.get(url);
      expect(page.status, url).toBe(200);
      pages.push(deliveriesOn(page.text));
      urls.push(url);
      if (pages.length === 1) {
        expect(page.text).toContain('newest deliveries of this order are shown; there are older ones.');
        // 102 events, and the machine's diagram twice: drawn for the step shown, and once for the replay's steps.
        expect(page.text.match(/data-revision="/g)).toHaveLength(102);
        expect(page.text.match(/stateDiagram-v2/g)).toHaveLength(2);
      }
      url = older(page.text);
      expect(pages.length).toBeLessThan(10);
    }
    expect(pages.map((p) => p.length)).toEqual([50, 50, 2]);
    expect(new Set(pages.flat()).size).toBe(102);
    const last = await agent.get(urls[2]!);
    expect(last.text).toContain('The 2 oldest deliveries of this order are shown.');
    expect(last.text).toContain(`<a href="/console/orders/${orderId}">◀ Newest deliveries</a>`);

    // Redelivered from the second page, the operator is back on that page, at that delivery.
    const second = await agent.get(urls[1]!);
    const deliveryId = pages[1]![0]!;
    const cursor = new URL(urls[1]!, 'http://x').searchParams.get('deliveries_after')!;
    expect(second.text).toContain(`<input type="hidden" name="deliveries_after" value="${cursor}" />`);
    const redelivered = await agent
      .post(`/console/deliveries/${deliveryId}/redeliver`)
      .type('form')
      .send({ csrf, deliveries_after: cursor });
    expect(redelivered.status).toBe(303);
    const back = new URL(redelivered.headers.location as string, 'http://x');
    expect(back.pathname).toBe(`/console/orders/${orderId}`);
    expect(back.searchParams.get('deliveries_after')).toBe(cursor);
    expect(back.hash).toBe(`#delivery-${deliveryId}`);
    const shown = await agent.get(back.pathname + back.search);
    expect(shown.text).toContain('Redelivered:');
    expect(deliveriesOn(shown.text)).toContain(deliveryId);
  }, 120_000);
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
    expect(action).toMatchObject({
      key_id: live.record.id,
      outcome: 'revoked',
      console_session: expect.stringMatching(/^cs_[0-9a-f]{12}$/),
    });
    // A refused action is logged with its outcome too, and every page view with what it showed.
    expect((await agent.post('/console/keys/key_nothing/revoke').type('form').send({ csrf })).status).toBe(404);
    expect(lines.find((l) => l.action === 'revoke key' && l.key_id === 'key_nothing')).toMatchObject({
      outcome: 'not found',
    });
    expect((await agent.post('/console/deliveries/whd_nothing/redeliver').type('form').send({ csrf })).status).toBe(
      404,
    );
    expect(lines.find((l) => l.action === 'redeliver')).toMatchObject({
      delivery_id: 'whd_nothing',
      outcome: 'not found',
    });
    expect((await agent.get('/console/orders/ord_logged_view')).status).toBe(404);
    expect(lines.find((l) => l.msg === 'console view' && l.page === 'order')).toMatchObject({
      order_id: 'ord_logged_view',
      console_session: action!.console_session,
    });
    expect((await agent.get('/console/orders?q=some-term')).status).toBe(200);
    expect(lines.find((l) => l.msg === 'console view' && l.page === 'search')).toMatchObject({ q: 'some-term' });
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
    const input = { prefix: '', limit: 100, after: undefined, streams: [] };
    const page = streamsPage('csrf-token', { ...input, uiUrl: 'http://esdb.internal:2113/web/' });
    expect(page).toContain('<a href="http://esdb.internal:2113/web/">');
    expect(streamsPage('csrf-token', input)).not.toContain('EventStoreDB');
  });
});

describe('console on the EventStoreDB adapter, over the gRPC stand-in (not EventStoreDB)', () => {
  let server: EsdbStandIn;
  let t: TestService;
  beforeAll(async () => {
    server = await EsdbStandIn.start();
    t = await startTestService({ env: { ADMIN_TOKEN, EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: server.url } });
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  it('when the event store refuses a stream or the stream list to this service, then the page is a 403 saying so, with no stack trace', async () => {
    await t.stores.events.append('console-esdb-1', [{ type: 'Tick', data: {}, metadata: { schema_version: 1 } }], {
      expectedRevision: 'no_stream',
    });
    const { agent } = await login(t.service.app.express);
    expect((await agent.get('/console/streams/console-esdb-1')).status).toBe(200);
    expect((await agent.get('/console/streams?prefix=console-esdb-')).text).toContain('console-esdb-1');

    server.denyReads((streamId) => streamId === '$denied-stream' || streamId === '$streams');
    const noStack = (text: string) => {
      expect(text).not.toMatch(/\bat .+:\d+:\d+/);
      expect(text).not.toMatch(/AccessDenied|PERMISSION_DENIED|Error\b/);
    };
    const denied = await agent.get('/console/streams/%24denied-stream');
    expect(denied.status).toBe(403);
    expect(denied.headers['content-type']).toMatch(/^text\/html/);
    expect(denied.text).toContain('<h1>Access denied</h1>');
    expect(denied.text).toContain('The event store does not let this service read $denied-stream.');
    noStack(denied.text);
    const list = await agent.get('/console/streams');
    expect(list.status).toBe(403);
    expect(list.text).toContain('The event store does not let this service read $streams.');
    noStack(list.text);
    // The refusal was the server's, for the streams it was asked for; others still read.
    expect(server.calls.filter((c) => c.error === 'Access Denied').map((c) => c.read?.streamId)).toEqual([
      '$denied-stream',
      '$streams',
    ]);
    expect((await agent.get('/console/streams/console-esdb-1')).status).toBe(200);
  });
});

describe('console sessions across replicas', () => {
  // Two replicas of one deployment (same ADMIN_TOKEN, own processes' memory), a third with another token.
  const clock = new ManualClock();
  let a: TestService;
  let b: TestService;
  let other: TestService;
  beforeAll(async () => {
    [a, b, other] = await Promise.all([
      startTestService({ env: { ADMIN_TOKEN }, clock }),
      startTestService({ env: { ADMIN_TOKEN }, clock }),
      startTestService({ env: { ADMIN_TOKEN: `${ADMIN_TOKEN}-rotated` }, clock }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), other?.close()]);
  });

  it('when an operator logs in on one replica, then another replica takes the cookie and the CSRF token; it ends after 8 hours', async () => {
    const partner = await b.partner({ name: 'Replica Partner' });
    const login = await supertest(a.service.app.express)
      .post('/console/login')
      .type('form')
      .send({ token: ADMIN_TOKEN });
    expect(login.status).toBe(303);
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
    const csrfOn = async (t: TestService) =>
      /name="csrf" value="([^"]+)"/.exec(
        (await supertest(t.service.app.express).get('/console/partners').set('Cookie', cookie)).text,
      )?.[1];
    const csrf = await csrfOn(a);
    expect(csrf).toBeTruthy();
    expect(await csrfOn(b)).toBe(csrf);

    const onB = supertest(b.service.app.express);
    const revoked = await onB
      .post(`/console/keys/${partner.liveKeyId}/revoke`)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf });
    expect(revoked.status).toBe(303);
    expect(
      (await b.stores.partners.listKeys(partner.id)).find((k) => k.id === partner.liveKeyId)!.revoked_at,
    ).not.toBeNull();

    // Another ADMIN_TOKEN (a rotation) knows no session of the old one.
    const rotated = await supertest(other.service.app.express).get('/console/partners').set('Cookie', cookie);
    expect(rotated.status).toBe(303);
    expect(rotated.headers.location).toBe('/console/login?next=%2Fconsole%2Fpartners');
    // A cookie whose expiry was pushed out no longer matches its MAC.
    const [v, id, issued, expires, mac] = cookie.split('=')[1]!.split('.');
    const stretched = `${CONSOLE_COOKIE}=${[v, id, issued, String(Number(expires) + 3_600_000), mac].join('.')}`;
    expect((await onB.get('/console/partners').set('Cookie', stretched)).status).toBe(303);

    // Absolute expiry: still in at 8 h less a second, out at 8 h, used or not.
    clock.advance(8 * 60 * 60 * 1000 - 1000);
    expect((await onB.get('/console/partners').set('Cookie', cookie)).status).toBe(200);
    clock.advance(1000);
    const expired = await onB.get('/console/partners').set('Cookie', cookie);
    expect(expired.status).toBe(303);
    expect(expired.headers.location).toBe('/console/login?next=%2Fconsole%2Fpartners');
    const late = await onB
      .post(`/console/keys/${partner.sandboxKeyId}/revoke`)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf });
    expect(late.status).toBe(401);
  });
});

describe('console behind an https PUBLIC_BASE_URL', () => {
  let t: TestService;
  beforeAll(
    async () => (t = await startTestService({ env: { ADMIN_TOKEN, PUBLIC_BASE_URL: 'https://orders.example.com' } })),
  );
  afterAll(() => t.close());

  it('when logging in over plain HTTP to the service (TLS ended before it), then the cookie is Secure and pages send HSTS', async () => {
    const res = await supertest(t.service.app.express).post('/console/login').type('form').send({ token: ADMIN_TOKEN });
    expect(res.status).toBe(303);
    expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(/; Secure/);
    const page = await supertest(t.service.app.express).get('/console/login');
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('then every answer sends HSTS, the checkout pages, the API reference and the API included; over http none does', async () => {
    const http = await startTestService({ env: { ADMIN_TOKEN } });
    try {
      for (const path of ['/checkout/cs_doesnotexist00000000000000', '/docs', '/v1/ping', '/console/login']) {
        const secure = await supertest(t.service.app.express).get(path);
        const plain = await supertest(http.service.app.express).get(path);
        expect(secure.headers['strict-transport-security'], path).toBe('max-age=31536000');
        expect(plain.headers['strict-transport-security'], path).toBeUndefined();
        expect(secure.status, path).toBe(plain.status);
      }
    } finally {
      await http.close();
    }
  });
});

describe('console stream pages of a bounded stream', () => {
  let t: TestService;
  beforeAll(async () => (t = await startTestService({ env: { ADMIN_TOKEN } })));
  afterAll(() => t.close());

  it('when a stream keeps only its newest events, then pages follow the revisions kept and a from past the end is 404', async () => {
    const stream = 'console-bounded-1';
    await t.stores.events.append(
      stream,
      Array.from({ length: 10 }, (_, i) => ({ type: 'Tick', data: { i }, metadata: { schema_version: 1 } })),
      { expectedRevision: 'no_stream' },
    );
    await t.stores.events.setStreamMaxCount(stream, 4);
    const { agent } = await login(t.service.app.express);
    const revisions = (text: string) => [...text.matchAll(/<tr>\s*<td>(\d+)<\/td>/g)].map((m) => Number(m[1]));
    const link = (text: string, label: string) =>
      new RegExp(`<a href="(\\?from=\\d+&(?:amp;)?count=\\d+)">${label}`).exec(text)?.[1]?.replace(/&amp;/g, '&');

    const first = await agent.get(`/console/streams/${stream}?count=3`);
    expect(first.status).toBe(200);
    expect(revisions(first.text)).toEqual([6, 7, 8]);
    expect(first.text).toContain('Revisions #6 to #8 shown; last revision of the stream: #9');
    expect(link(first.text, '◀ Earlier')).toBeUndefined();
    expect(link(first.text, 'Later')).toBe('?from=9&count=3');

    const second = await agent.get(`/console/streams/${stream}?from=9&count=3`);
    expect(revisions(second.text)).toEqual([9]);
    expect(link(second.text, 'Later')).toBeUndefined();
    expect(link(second.text, '◀ Earlier')).toBe('?from=6&count=3');

    expect((await agent.get(`/console/streams/${stream}?from=10`)).status).toBe(404);
    for (const far of ['1234567890', '99999999999999999999'])
      expect((await agent.get(`/console/streams/${stream}?from=${far}`)).status, far).toBe(404);
    const listing = await agent.get('/console/streams?prefix=console-bounded-');
    expect(listing.text).toMatch(/<th scope="col">Last revision<\/th>/);
    expect(listing.text).toMatch(/console-bounded-1<\/a>\s*<\/td>\s*<td>9<\/td>/);
  });

  it('when streams are listed a few at a time, then Next page links lead through every stream once, in order, and back to the first page', async () => {
    // Created out of name order; one name needs escaping in a URL and in HTML.
    const names = ['console-page-d', 'console-page-a', 'console-page-c & co', 'console-page-e', 'console-page-b'];
    for (const name of names)
      await t.stores.events.append(name, [{ type: 'Tick', data: {}, metadata: { schema_version: 1 } }], {
        expectedRevision: 'no_stream',
      });
    await t.stores.events.append('console-pagf-other', [{ type: 'Tick', data: {}, metadata: { schema_version: 1 } }], {
      expectedRevision: 'no_stream',
    });
    const { agent } = await login(t.service.app.express);
    const unescape = (href: string) => href.replace(/&amp;/g, '&');
    const listed = (text: string) =>
      [...text.matchAll(/<a class="mono" href="\/console\/streams\/([^"]+)">/g)].map((m) => decodeURIComponent(m[1]!));
    const link = (text: string, label: string) =>
      new RegExp(`<a href="(/console/streams\\?[^"]*)">${label}</a>`).exec(text)?.[1];

    const first = '/console/streams?prefix=console-page-&limit=2';
    const seen: string[][] = [];
    let next: string | undefined = first;
    while (next) {
      const page = await agent.get(next);
      expect(page.status, next).toBe(200);
      seen.push(listed(page.text));
      const back = link(page.text, '◀ First page');
      if (seen.length === 1) expect(back).toBeUndefined();
      else expect(unescape(back!)).toBe('/console/streams?prefix=console-page-&limit=2');
      const href = link(page.text, 'Next page ▶');
      next = href && unescape(href);
      if (next) expect(new URL(next, 'http://x').searchParams.get('after')).toBe(seen.at(-1)!.at(-1));
      expect(seen.length).toBeLessThan(10);
    }
    expect(seen.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(seen.flat()).toEqual([...names].sort());

    // A full last page links a next one, which says there are no more.
    const full = await agent.get('/console/streams?prefix=console-page-&limit=5');
    const after = unescape(link(full.text, 'Next page ▶')!);
    const empty = await agent.get(after);
    expect(empty.status).toBe(200);
    expect(listed(empty.text)).toEqual([]);
    expect(empty.text).toContain('No more streams.');
    expect(link(empty.text, 'Next page ▶')).toBeUndefined();
    expect(link(empty.text, '◀ First page')).toBeDefined();
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { placeOrder } from '../support/orders.js';
import { browserTestRuns, CHROMIUM, haveChromium, launchChromium } from '../support/chromium.js';
import { register, startReceiver, startWebhookService, type Receiver } from '../http/webhooks-fixture.js';

// The console in Chromium where the browser decides: a link followed from another site (an alert, a
// chat message), and partners' long unbroken text, which must not widen the pages.
const RUNS = browserTestRuns('console links and long text');

const ADMIN_TOKEN = 'console-links-admin-token-0123456789abcdef';
const VIEWPORT = { width: 1280, height: 800 };
// As long as the API takes them: a reference of 100 characters, a webhook URL of 1,950.
const REFERENCE = `ref-${'R'.repeat(96)}`;
const PARTNER_NAME = `Partner-${'N'.repeat(2992)}`;
/** The axe-core rules of WCAG 2.0 and 2.1, levels A and AA (as test/browser/console.test.ts checks). */
const WCAG_A_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

let t: Awaited<ReturnType<typeof startWebhookService>>;
let receiver: Receiver;
let hookUrl: string;
let orderId: string;
let partnerId: string;
let console_: http.Server;
let elsewhere: http.Server;
/** The console at 127.0.0.1; the other site at localhost (another site to the browser). */
let base: string;
let otherSite: string;
let browser: Browser;

const listen = async (server: http.Server, host: string): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
};
const close = (server: http.Server | undefined) =>
  server && new Promise((resolve) => (server.closeAllConnections(), server.close(resolve)));

beforeAll(async () => {
  if (!haveChromium) return;
  t = await startWebhookService({ env: { ADMIN_TOKEN } });
  const partner = await t.partner(PARTNER_NAME);
  partnerId = partner.id;
  receiver = await startReceiver();
  hookUrl = `${receiver.url}?pad=${'u'.repeat(1950 - receiver.url.length - 5)}`;
  expect(hookUrl).toHaveLength(1950);
  await register(t, partner.sandbox, hookUrl);
  const placed = await placeOrder(t.http, partner.sandbox, { reference: REFERENCE });
  expect(placed.status).toBe(201);
  orderId = placed.body.data.id as string;
  await receiver.waitFor(1);
  // Another partner's reference that is this partner's id: a search for the id shows both kinds.
  const other = await t.partner('Shadowing Partner');
  expect((await placeOrder(t.http, other.sandbox, { reference: partnerId })).status).toBe(201);

  console_ = http.createServer(t.service.app.express);
  base = await listen(console_, '127.0.0.1');
  const link = `${base}/console/orders/${encodeURIComponent(orderId)}`;
  // A chat message with a link to the order, and a form that posts to the console from elsewhere.
  elsewhere = http.createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><title>Chat</title><p><a id="link" href="${link}">the order</a></p>
       <form method="post" action="${base}/console/logout"><button id="forged">Log them out</button></form>`,
    ),
  );
  otherSite = await listen(elsewhere, 'localhost');
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await close(elsewhere);
  await close(console_);
  await receiver?.close();
  await t?.close();
});

async function logIn(page: Page): Promise<void> {
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => url.pathname !== '/console/login');
}

describe.runIf(RUNS).sequential('console links from another site, in Chromium', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    if (!haveChromium) return;
    context = await browser.newContext({ viewport: VIEWPORT });
    page = await context.newPage();
  });
  afterAll(() => context?.close());

  it('when a link to an order is followed from another site without a session, then logging in goes on to that order', async () => {
    expect(haveChromium, `${CHROMIUM} is required in CI`).toBe(true);
    await page.goto(otherSite);
    await page.locator('#link').click();
    await page.waitForURL((url) => url.pathname === '/console/login');
    expect(new URL(page.url()).searchParams.get('next')).toBe(`/console/orders/${orderId}`);
    await logIn(page);
    expect(new URL(page.url()).pathname).toBe(`/console/orders/${orderId}`);
    await page.getByRole('heading', { name: `Order ${orderId}` }).waitFor();
  });

  it('when a link is followed from another site with a session, then it opens the linked page, not the login', async () => {
    const [cookie] = await context.cookies(`${base}/console/`);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/console' });
    await page.goto(otherSite);
    await page.locator('#link').click();
    await page.waitForURL((url) => url.origin === base);
    expect(new URL(page.url()).pathname).toBe(`/console/orders/${orderId}`);
    await page.getByRole('heading', { name: `Order ${orderId}` }).waitFor();
    // A reload stays there too.
    await page.reload();
    await page.getByRole('heading', { name: `Order ${orderId}` }).waitFor();
  });

  it('when a form on another site posts to the console, then the browser sends no session with it and nothing is done', async () => {
    await page.goto(otherSite);
    const [answer] = await Promise.all([
      page.waitForResponse(`${base}/console/logout`),
      page.locator('#forged').click(),
    ]);
    expect(answer.status()).toBe(401);
    await page.goto(`${base}/console/partners`);
    expect(new URL(page.url()).pathname).toBe('/console/partners');
  });
});

describe.runIf(RUNS).sequential("console pages with partners' long unbroken text, in Chromium", () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    if (!haveChromium) return;
    context = await browser.newContext({ viewport: VIEWPORT });
    page = await context.newPage();
    await page.goto(`${base}/console/login`);
    await logIn(page);
  });
  afterAll(() => context?.close());

  /** How much wider than the window the page is, after opening every <details>. */
  async function overflow(path: string, ready: string): Promise<number> {
    await page.goto(`${base}${path}`);
    await page.locator(ready).first().waitFor();
    await page.locator('details').evaluateAll((all) => all.forEach((d) => d.setAttribute('open', '')));
    return page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  }

  it('when a 100-character reference, a 1,950-character webhook URL and a 3,000-character partner name are shown, then no page is wider than the window, and the text is all there', async () => {
    const order = `/console/orders/${encodeURIComponent(orderId)}`;
    const pages: Array<[string, string, string]> = [
      ['orders', '/console/orders', `a[href="${order}"]`],
      ['orders of the partner', `/console/orders?partner=${partnerId}`, `a[href="${order}"]`],
      ['search by reference', `/console/orders?q=${REFERENCE}`, `a[href="${order}"]`],
      ['search by partner id', `/console/orders?q=${partnerId}`, `a[href="${order}"]`],
      ['order', order, 'section.delivery'],
      ['order stream', `/console/streams/order-${encodeURIComponent(orderId)}`, 'tbody tr'],
      ['partners', '/console/partners', 'tr[data-key]'],
    ];
    const wide: string[] = [];
    for (const [name, path, ready] of pages) {
      const over = await overflow(path, ready);
      if (over > 0) wide.push(`${name}: ${over} px wider than the window`);
    }
    expect(wide).toEqual([]);

    // Wrapped, not cut: every character is still on the page, and the columns after the reference are on screen.
    await page.goto(`${base}/console/orders`);
    const row = page.locator('tbody tr', { hasText: REFERENCE });
    expect(await row.innerText()).toContain(REFERENCE);
    const created = await row.locator('td').last().boundingBox();
    expect(created!.x + created!.width).toBeLessThanOrEqual(VIEWPORT.width);
    await page.goto(`${base}${order}`);
    expect(await page.locator('section.delivery p', { hasText: 'To ' }).first().innerText()).toContain(hookUrl);
    await page.goto(`${base}/console/partners`);
    // Both partners were made at the same (manual) instant: which heading comes first is not fixed.
    const heading = page.getByRole('heading', { level: 2 }).filter({ hasText: PARTNER_NAME.slice(0, 40) });
    expect(await heading.innerText()).toContain(PARTNER_NAME);
  });

  it('when the login with a page to go on to and a search matching two kinds are checked with axe-core, then none breaks a WCAG 2.0 or 2.1 A or AA rule', async () => {
    const found: string[] = [];
    for (const [path, ready] of [
      [`/console/orders?q=${partnerId}`, '#match-partner-reference'],
      [`/console/orders/${encodeURIComponent(orderId)}`, 'section.delivery'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await page.locator(ready).waitFor();
      const { violations } = await new AxeBuilder({ page }).withTags(WCAG_A_AA).analyze();
      found.push(...violations.map((v) => `${path}: ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    }
    const anonymous = await browser.newContext({ viewport: VIEWPORT });
    const login = await anonymous.newPage();
    await login.goto(`${base}/console/partners`);
    await login.locator('#next').waitFor();
    const { violations } = await new AxeBuilder({ page: login }).withTags(WCAG_A_AA).analyze();
    found.push(...violations.map((v) => `login: ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    await anonymous.close();
    expect(found).toEqual([]);
  }, 60_000);
});

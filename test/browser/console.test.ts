import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { bearer, type TestPartner } from '../support/service.js';
import { placeOrder } from '../support/orders.js';
import { browserTestRuns, CHROMIUM, haveChromium, launchChromium } from '../support/chromium.js';
import { register, startReceiver, startWebhookService, type Receiver } from '../http/webhooks-fixture.js';

// The operators' console in a real browser (test/support/chromium.ts). It also writes the
// screenshots of docs/operations.md ("Console").
const RUNS = browserTestRuns('operations console');

const ADMIN_TOKEN = 'console-browser-admin-token-0123456789abcdef';
const IMAGES = path.join(import.meta.dirname, '../../docs/images');
// Generous: the order page loads mermaid (3.6 MB, 1.0 MB gzipped) on a busy 2-core machine.
const RENDER_MS = 60_000;

let t: Awaited<ReturnType<typeof startWebhookService>>;
let partner: TestPartner;
let receiver: Receiver;
let receiverFails = true;
let orderId: string;
let server: http.Server;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const errors: string[] = [];
const elsewhere: string[] = [];

beforeAll(async () => {
  if (!haveChromium) return;
  t = await startWebhookService({ env: { ADMIN_TOKEN } });
  partner = await t.partner('Console Browser Partner');
  receiver = await startReceiver();
  receiver.reply = () => ({ status: receiverFails ? 500 : 200 });
  await register(t, partner.sandbox, receiver.url);
  const placed = await placeOrder(t.http, partner.sandbox, { reference: 'browser-ref-7' });
  expect(placed.status).toBe(201);
  orderId = placed.body.data.id as string;
  // The first attempt of order.created fails (500): the delivery waits for its next scheduled try.
  await receiver.waitFor(1);
  const accepted = await t.http.post(`/internal/orders/${orderId}/accept`).set(bearer(ADMIN_TOKEN));
  expect(accepted.status).toBe(200);

  server = http.createServer(t.service.app.express);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on('request', (r) => {
    if (!r.url().startsWith(base) && !r.url().startsWith('data:') && !r.url().startsWith('blob:'))
      elsewhere.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // Failed loads are checked by URL below (the wrong token's 401 is expected, /favicon.ico is not served).
    if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  page.on('response', (r) => {
    const expected = r.status() === 401 && r.url() === `${base}/console/login`;
    if (r.status() >= 400 && !expected && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
  });
});

afterAll(async () => {
  await browser?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await receiver?.close();
  await t?.close();
});

/** Takes every screenshot; writes them over docs/images only with WRITE_SCREENSHOTS=1 (they change each run). */
const shot = async (name: string) => {
  const png = await page.screenshot();
  expect(png.length).toBeGreaterThan(0);
  if (process.env.WRITE_SCREENSHOTS === '1') fs.writeFileSync(path.join(IMAGES, `console-${name}.png`), png);
};

/** Bytes transferred (headers and bodies) for everything a navigation loads. */
async function transferred(go: () => Promise<unknown>): Promise<number> {
  const sizes: Array<Promise<number>> = [];
  const onFinished = (r: import('playwright-core').Request) =>
    sizes.push(r.sizes().then((s) => s.responseBodySize + s.responseHeadersSize));
  page.on('requestfinished', onFinished);
  await go();
  await page.waitForLoadState('networkidle');
  page.off('requestfinished', onFinished);
  return (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
}

/** The axe-core rules of WCAG 2.0 and 2.1, levels A and AA. */
const WCAG_A_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe-core's WCAG A and AA violations on the page as it is now: one line per element, for a failure message. */
async function axeViolations(on: Page, name: string): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page: on }).withTags(WCAG_A_AA).analyze();
  return violations.flatMap((v) =>
    v.nodes.map(
      (n) =>
        `${name}: ${v.id} (${v.impact ?? 'impact unknown'}) at ${n.target.join(' ')}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ')}`,
    ),
  );
}

// One operator's session through the console, in order: each step builds on the one before.
describe.runIf(RUNS).sequential('operations console (/console) in Chromium', () => {
  it('when opened without a session, then the login asks for the token; a wrong one is refused', async () => {
    expect(haveChromium, `${CHROMIUM} is required in CI`).toBe(true);
    await page.goto(`${base}/console`);
    expect(new URL(page.url()).pathname).toBe('/console/login');
    // The token field is focused on arrival; Shift+Tab from it reaches the skip link.
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('token');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Skip to content');
    await page.getByLabel('Admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('That is not the admin token.').waitFor();
    expect(await context.cookies()).toEqual([]);
  });

  it('when logged in, then the first page lists the order, under 300 KB transferred', async () => {
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    const bytes = await transferred(() => page.getByRole('button', { name: 'Log in' }).click());
    expect(new URL(page.url()).pathname).toBe('/console/orders');
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(300 * 1024);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/console' });
    await page.getByRole('link', { name: orderId }).waitFor();
    await shot('orders');
  });

  it('when the partner reference is searched, then the order page shows its timeline with the right statuses', async () => {
    await page.getByLabel('Order id, number, partner reference or partner id').fill('browser-ref-7');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('heading', { name: /partner reference/ }).waitFor();
    await page.getByRole('link', { name: orderId }).click();
    await page.getByRole('heading', { name: `Order ${orderId}` }).waitFor();
    const rows = page.locator('tr[data-revision]');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toMatch(/OrderPlaced[\s\S]*placed/);
    expect(await rows.nth(1).innerText()).toMatch(/OrderAccepted[\s\S]*confirmed/);
    expect(await page.locator('#as-of-status').innerText()).toBe('confirmed');
    // The machine diagram, drawn by mermaid from the page's own copy, with this order's path marked.
    await page.locator('#machine-diagram svg').waitFor({ timeout: RENDER_MS });
    expect(await page.locator('#machine-diagram svg .current').count()).toBeGreaterThan(0);
    expect(await page.locator('#machine-diagram svg .visited').count()).toBeGreaterThan(0);
    await shot('order');
  });

  it('when stepped back, then the order is shown as it was after its first event', async () => {
    const drawn = await page.locator('#machine-diagram').getAttribute('data-rendered');
    await page.getByRole('link', { name: 'Previous event' }).click();
    expect(await page.locator('#as-of-status').innerText()).toBe('placed');
    expect(await page.locator('#replay-label').innerText()).toContain('OrderPlaced');
    expect(await page.locator('tr[data-revision="1"]').getAttribute('class')).toContain('future');
    expect(page.url()).toContain('after=0');
    // Redrawn for the earlier state.
    await expect.poll(() => page.locator('#machine-diagram').getAttribute('data-rendered')).not.toBe(drawn);
    // The same state without the script: a link the server answers.
    const plain = await context.request.get(`${base}/console/orders/${orderId}?after=0`);
    expect(await plain.text()).toMatch(/id="as-of-status">placed</);
    await page.getByRole('link', { name: 'Next event' }).click();
    expect(await page.locator('#as-of-status').innerText()).toBe('confirmed');
    // By keyboard: the slider moves with the arrow keys.
    await page.locator('#replay-slider').focus();
    await page.keyboard.press('ArrowLeft');
    expect(await page.locator('#as-of-status').innerText()).toBe('placed');
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('#as-of-status').innerText()).toBe('confirmed');
  });

  it('when a delivery failed, then its attempt shows the 500; redelivered to a receiver that now answers 200, it is delivered', async () => {
    const delivery = page.locator('section.delivery', { hasText: 'order.created' });
    expect(await delivery.locator('.delivery-status').innerText()).toBe('retrying');
    expect(await delivery.locator('td.bad').first().innerText()).toBe('500');
    receiverFails = false;
    const before = receiver.received.length;
    await delivery.getByRole('button', { name: 'Redeliver order.created' }).click();
    await page.getByText('Redelivered:').waitFor();
    const after = page.locator('section.delivery', { hasText: 'order.created' });
    expect(await after.locator('.delivery-status').innerText()).toBe('succeeded');
    expect(await after.locator('td.ok').last().innerText()).toBe('200');
    expect(receiver.received.length).toBeGreaterThan(before);
    expect(receiver.received.at(-1)!.event.type).toBe('order.created');
    await after.scrollIntoViewIfNeeded();
    await shot('webhooks');
  });

  it('when a key is revoked, then requests with it are refused', async () => {
    expect((await t.http.get('/v1/ping').set(bearer(partner.live))).status).toBe(200);
    await page.getByRole('link', { name: 'Partners and keys' }).click();
    const row = page.locator(`tr[data-key="${partner.liveKeyId}"]`);
    await row.getByRole('button', { name: `Revoke key ${partner.liveKeyId}` }).click();
    await page.getByText('Key revoked').waitFor();
    expect(await page.locator(`tr[data-key="${partner.liveKeyId}"] .revoked`).innerText()).not.toBe('active');
    await shot('partners');
    // Cached answers of the key resolver expire within a second: wait on the refusal, not a sleep.
    await expect.poll(async () => (await t.http.get('/v1/ping').set(bearer(partner.live))).status).toBe(401);
    expect((await t.http.get('/v1/ping').set(bearer(partner.sandbox))).status).toBe(200);
  });

  it('when audit verify runs, then the page follows it to its result; a rebuild replaces a tampered document', async () => {
    await page.getByRole('link', { name: 'Read side' }).click();
    await page.getByRole('button', { name: 'Run audit verify' }).click();
    expect(new URL(page.url()).pathname).toBe('/console/read-side');
    // The page polls the job and reloads itself once it has ended.
    await page.locator('#audit-verdict').waitFor({ timeout: RENDER_MS });
    expect(await page.locator('#audit-verdict').innerText()).toMatch(/^OK: \d+ read models equal the replay/);
    await shot('read-side');

    // Only a rebuild (a fresh fold of the log) puts the served document back as the log has it.
    const store = t.service.services.readModels.store;
    const stored = (await store.get<{ status: string }>('orders', orderId))!;
    expect(await store.put('orders', { ...stored, doc: { ...stored.doc, status: 'cancelled' } }, stored.seq)).toBe(
      true,
    );
    await page.getByRole('button', { name: 'Rebuild orders-list' }).click();
    await page.getByText('Rebuild started').waitFor();
    await expect
      .poll(async () => (await store.get<{ status: string }>('orders', orderId))!.doc.status, { timeout: RENDER_MS })
      .toBe(stored.doc.status);
    await expect
      .poll(() => page.locator('tr[data-projection="orders-list"] .lag').innerText(), { timeout: RENDER_MS })
      .toBe('0');
  });

  it('when the stream browser is used, then the order stream reads with its events', async () => {
    await page.getByRole('link', { name: 'Streams' }).click();
    await page.getByLabel('Stream name starts with').fill('order-');
    await page.getByRole('button', { name: 'List' }).click();
    await page.getByRole('link', { name: `order-${orderId}` }).click();
    await page.getByRole('heading', { name: `Stream order-${orderId}` }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(2);
  });

  it('when every page is checked with axe-core, then none breaks a WCAG 2.0 or 2.1 A or AA rule', async () => {
    const found: string[] = [];
    // Logged out, in a context of its own: the login page, then as it refuses a wrong token.
    const anonymous = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const login = await anonymous.newPage();
    await login.goto(`${base}/console`);
    found.push(...(await axeViolations(login, 'login')));
    await login.getByLabel('Admin token').fill('not-the-token');
    await login.getByRole('button', { name: 'Log in' }).click();
    await login.getByText('That is not the admin token.').waitFor();
    found.push(...(await axeViolations(login, 'login refused')));
    await anonymous.close();

    // Logged in (this session's context), every page as the steps above left the data: [name, path,
    // what shows the page is ready (on the order page, the diagram mermaid draws)].
    const other = await context.newPage();
    const order = `/console/orders/${encodeURIComponent(orderId)}`;
    const pages: Array<[string, string, string]> = [
      ['orders', '/console/orders', `a[href="${order}"]`],
      ['orders found', '/console/orders?q=browser-ref-7', `a[href="${order}"]`],
      ['orders not found', '/console/orders?q=no-such-order', '.notice.bad'],
      ['order', order, '#machine-diagram svg'],
      ['order after its first event', `${order}?after=0`, '#machine-diagram svg'],
      ['streams', '/console/streams?prefix=order-', 'tbody a'],
      ['stream', `/console/streams/order-${encodeURIComponent(orderId)}`, 'tbody tr'],
      ['read side', '/console/read-side', '#audit-verdict'],
      ['partners and keys', '/console/partners', 'tr[data-key]'],
      ['missing stream (404)', '/console/streams/no-such-stream', 'h1:text-is("No such stream")'],
      ['missing order (404)', '/console/orders/no-such-order', 'h1:text-is("No such order")'],
    ];
    for (const [name, url, ready] of pages) {
      await other.goto(`${base}${url}`);
      await other.locator(ready).first().waitFor({ timeout: RENDER_MS });
      // axe leaves out what is hidden: the events' data is checked opened.
      await other.locator('details').evaluateAll((all) => all.forEach((d) => d.setAttribute('open', '')));
      found.push(...(await axeViolations(other, name)));
    }
    await other.close();
    expect(found, `axe-core violations:\n${found.join('\n')}`).toEqual([]);
  }, 180_000);

  it('when logged out, then the console asks for the token again; nothing came from another origin and no page failed', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    expect(new URL(page.url()).pathname).toBe('/console/login');
    await page.goto(`${base}/console/partners`);
    expect(new URL(page.url()).pathname).toBe('/console/login');
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
  });
});

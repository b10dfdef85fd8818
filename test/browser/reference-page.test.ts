import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestPartner, type TestService } from '../support/service.js';
import { browserTestRuns, CHROMIUM, haveChromium, launchChromium } from '../support/chromium.js';

// The API reference at /docs in a real browser (test/support/chromium.ts).
const RUNS = browserTestRuns('API reference');

// Generous bounds: the page loads a 4 MB bundle and renders about 50 operations on a busy 2-core machine.
const RENDER_MS = 60_000;

let t: TestService;
let partner: TestPartner;
let server: http.Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  t = await startTestService();
  partner = await t.partner({ name: 'Reference Page Partner' });
  server = http.createServer(t.service.app.express);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await t?.close();
});

/** Opens /docs, recording requests to other origins and console errors (a CSP refusal is one). */
async function openReference(): Promise<{ page: Page; elsewhere: string[]; errors: string[] }> {
  const page = await browser.newPage();
  const elsewhere: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(base) && !r.url().startsWith('data:') && !r.url().startsWith('blob:'))
      elsewhere.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // The browser asks for /favicon.ico on its own; the service has none.
    if (m.type() === 'error' && !/favicon|status of 404/.test(m.text())) errors.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(`${base}/docs`);
  await page.getByText('Place an order (idempotent)').first().waitFor({ timeout: RENDER_MS });
  return { page, elsewhere, errors };
}

describe.runIf(RUNS)('API reference page (/docs) in Chromium', () => {
  it('when opened, then it renders every operation group and the webhook events, from this service only', async () => {
    expect(haveChromium, `${CHROMIUM} is required in CI`).toBe(true);
    const { page, elsewhere, errors } = await openReference();
    const doc = t.service.app.openApiDocument() as {
      paths: Record<string, Record<string, { summary: string }>>;
      webhooks: Record<string, { post: { summary: string } }>;
    };
    const text = await page.innerText('body');
    for (const summary of [
      doc.paths['/v1/ping']!.get!.summary,
      doc.paths['/v1/orders']!.post!.summary,
      doc.paths['/v1/stores']!.get!.summary,
      doc.paths['/v1/webhooks/endpoint']!.put!.summary,
    ])
      expect(text, summary).toContain(summary);
    for (const [type, webhook] of Object.entries(doc.webhooks)) {
      await page.getByText(webhook.post.summary).first().waitFor({ timeout: RENDER_MS });
      expect(type).toMatch(/^(order|webhook)\./);
    }
    expect(text).not.toContain('/internal/orders');
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('when a sandbox key is entered and GET /v1/ping is tried, then the page shows the 200 answer', async () => {
    const { page, errors } = await openReference();
    await page.getByPlaceholder('Token').first().fill(partner.sandbox);
    const ping = page.locator('[id$="/GET/v1/ping"]').first();
    await ping.scrollIntoViewIfNeeded({ timeout: RENDER_MS });
    await ping.getByRole('button', { name: /test request/i }).click();
    const send = page.getByRole('button', { name: /^send/i }).first();
    await send.waitFor({ timeout: RENDER_MS });
    await send.click();
    await page.getByText('200 OK').first().waitFor({ timeout: RENDER_MS });
    // The answer in the page is this partner's own ping.
    await page.getByText(partner.id).first().waitFor({ timeout: RENDER_MS });
    expect(errors).toEqual([]);
    await page.close();
  });
});

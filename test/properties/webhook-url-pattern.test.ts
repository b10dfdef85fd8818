import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_URL_PATTERN } from '../../src/http/schemas/webhooks.js';
import { MAX_URL_LENGTH, checkWebhookUrl } from '../../src/webhooks/ssrf-guard.js';

// A fixed seed keeps CI deterministic; FC_SEED=<n> explores other inputs locally.
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261124), numRuns: 1000 });

const PUBLIC_IP = '93.184.216.34';
const PRIVATE_IP = '10.1.2.3';
const pattern = new RegExp(WEBHOOK_URL_PATTERN);
const urls = fc.stringMatching(pattern).filter((u) => u.length <= MAX_URL_LENGTH);
const TEXT_RULES = ['length', 'syntax', 'scheme', 'credentials', 'port', 'address'];

// The document's pattern for PUT /v1/webhooks/endpoint's url promises partners that a URL matching
// it is never a 400: only what the host resolves to (a 422) can refuse it.
describe('the webhook URL pattern of the OpenAPI document', () => {
  it('given a URL matching the pattern, when its host resolves to a public address, then it is accepted', async () => {
    await fc.assert(
      fc.asyncProperty(urls, async (url) => {
        const check = await checkWebhookUrl(url, { allowPrivate: false, resolve: async () => [PUBLIC_IP] });
        expect(check, url).toMatchObject({ ok: true });
      }),
    );
  });

  it('given a URL matching the pattern, when its host resolves to a private address, then only the host rule refuses it', async () => {
    await fc.assert(
      fc.asyncProperty(urls, async (url) => {
        const check = await checkWebhookUrl(url, { allowPrivate: false, resolve: async () => [PRIVATE_IP] });
        expect(check.ok, url).toBe(false);
        if (!check.ok) expect(TEXT_RULES, url).not.toContain(check.rule);
      }),
    );
  });

  it.each([
    ['http://hooks.example.com/orders', 'plain http'],
    ['https://user:pw@hooks.example.com/orders', 'a user name and password'],
    ['https://hooks.example.com:22/orders', 'port 22'],
    ['https://hooks.example.com:80/orders', 'port 80'],
    ['https://2130706433/hook', 'a host the parser reads as an IPv4 number'],
    ['https://127.0.0.1/hook', 'an IP address'],
    ['https://xn--/hook', 'an xn-- label that is not punycode'],
  ])('given %s (%s), then the pattern refuses it, as the service does with a 400', async (url) => {
    expect(pattern.test(url)).toBe(false);
    const check = await checkWebhookUrl(url, { allowPrivate: false, resolve: async () => [PUBLIC_IP] });
    expect(check.ok).toBe(false);
  });

  it.each([
    'https://hooks.example.com/orders',
    'https://hooks.example.com:8443/a?b=c#d',
    'https://x.xn-a.xnn.example/',
  ])('given %s, then the pattern takes it', (url) => {
    expect(pattern.test(url)).toBe(true);
  });
});

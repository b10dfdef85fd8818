import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../support/service.js';
import { computeSignature, parseSignatureHeader, verifySignature } from '../../src/webhooks/signing.js';
import {
  decryptSecret,
  KEY_FILE_NAME,
  loadOrCreateKeyFile,
  parseKeyFromConfig,
} from '../../src/webhooks/secret-box.js';
import { ROTATION_OVERLAP_MS } from '../../src/webhooks/endpoints.js';
import {
  expectStripeVerifies,
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from './webhooks-fixture.js';

const PUBLIC_IP = '93.184.216.34';
/** The injected resolver: names the tests control; anything else does not resolve. */
const DNS: Record<string, string[]> = {
  'hooks.example.com': [PUBLIC_IP],
  'internal.example.com': ['10.0.0.5'],
  'metadata.example.com': ['169.254.169.254'],
  'mixed.example.com': [PUBLIC_IP, '192.168.1.10'],
  'six.example.com': ['2606:2800:220:1:248:1893:25c8:1946', 'fd12:3456::1'],
};
const resolve = async (host: string) => {
  const found = DNS[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

describe('registration with the URL guard on (production rules)', () => {
  let ts: WebhookService;
  beforeAll(async () => {
    ts = await startWebhookService({ env: { WEBHOOKS_ALLOW_PRIVATE_URLS: 'false' }, webhooks: { resolve } });
  });
  afterAll(() => ts.close());
  const put = async (key: string, body: Record<string, unknown>) =>
    ts.http.put('/v1/webhooks/endpoint').set(bearer(key)).send(body);

  // The rules on the URL's text (an IP address written in it included) are 400; what a name
  // resolves to is not in the text, so no schema can state it: 422 url_not_allowed (docs/api.md).
  const TEXT: Array<[string, string, RegExp]> = [
    ['loopback', 'https://127.0.0.1/hooks', /loopback/],
    ['loopback, another spelling', 'https://2130706433/hooks', /loopback/],
    ['private (RFC 1918)', 'https://10.1.2.3/hooks', /private/],
    ['link-local cloud metadata', 'https://169.254.169.254/latest/meta-data', /link-local/],
    ['carrier-grade NAT', 'https://100.64.0.1/hooks', /carrier-grade/],
    ['unspecified', 'https://0.0.0.0/hooks', /unspecified/],
    ['multicast', 'https://224.0.0.1/hooks', /multicast/],
    ['IPv6 loopback', 'https://[::1]/hooks', /loopback/],
    ['IPv6 unique-local', 'https://[fd00::1]/hooks', /unique-local/],
    ['IPv6 link-local', 'https://[fe80::1]/hooks', /link-local/],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hooks', /loopback address inside an IPv4-mapped/],
    ['plain http', 'http://hooks.example.com/hooks', /must use https/],
  ];
  const NAMES: Array<[string, string, RegExp]> = [
    [
      'a name resolving to a private address',
      'https://internal.example.com/hooks',
      /resolves to a private \(RFC 1918\) address/,
    ],
    [
      'a name resolving to the metadata address',
      'https://metadata.example.com/hooks',
      /resolves to a link-local address/,
    ],
    ['a name with one private address among public ones', 'https://mixed.example.com/hooks', /resolves to a private/],
    [
      'a name with a unique-local IPv6 address',
      'https://six.example.com/hooks',
      /resolves to a unique-local IPv6 address/,
    ],
    ['a name that does not resolve', 'https://nowhere.example.com/hooks', /could not be resolved/],
  ];

  it.each([
    ...TEXT.map(([name, url, reason]) => ({ name, url, reason, status: 400, code: 'validation_error' })),
    ...NAMES.map(([name, url, reason]) => ({ name, url, reason, status: 422, code: 'url_not_allowed' })),
  ])(
    'when the URL is $name, then $status $code on url with the reason, and nothing is registered',
    async ({ url, reason, status, code }) => {
      const p = await ts.partner();
      const res = await put(p.live, { url });
      expect(res.status).toBe(status);
      expect(res.body.error).toMatchObject({ code, param: 'url' });
      expect(res.body.error.message).toMatch(reason);
      expect(await ts.stores.webhookEndpoints.get(p.id, 'live')).toBeNull();
    },
  );

  it('given several problems at once, then what the document states (400) is answered before what it cannot (422)', async () => {
    const p = await ts.partner();
    const conflicting = { events: ['order.created'], enabled_events: ['order.refunded'] };
    const cases = [
      [{ url: 'https://hooks.example.com:22/hooks', ...conflicting }, 400, 'validation_error', 'url'],
      [
        { url: 'https://nowhere.example.com/hooks', events: ['order.eaten'], enabled_events: ['order.refunded'] },
        400,
        'validation_error',
        'events',
      ],
      [{ url: 'https://nowhere.example.com/hooks', ...conflicting }, 422, 'conflicting_parameters', 'enabled_events'],
      [{ url: 'https://nowhere.example.com/hooks', enabled_events: ['order.created'] }, 422, 'url_not_allowed', 'url'],
    ] as const;
    for (const [body, status, code, param] of cases) {
      const res = await put(p.live, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error, JSON.stringify(body)).toMatchObject({ code, param });
    }
    expect(await ts.stores.webhookEndpoints.get(p.id, 'live')).toBeNull();
  });

  it('when the name resolves to public addresses only, then it is registered', async () => {
    const p = await ts.partner();
    expect((await put(p.live, { url: 'https://hooks.example.com/orders' })).status).toBe(201);
  });
});

describe('registration, secrets and rotation', () => {
  let ts: WebhookService;
  let receiver: Receiver;
  beforeAll(async () => {
    ts = await startWebhookService();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await ts.close();
  });
  const put = async (key: string, body: Record<string, unknown>) =>
    ts.http.put('/v1/webhooks/endpoint').set(bearer(key)).send(body);

  it('when registered first, then 201 shows the secret once; a later PUT answers 200, changes url and events, and never shows it', async () => {
    const p = await ts.partner();
    const first = await put(p.sandbox, { url: receiver.url });
    expect(first.status).toBe(201);
    const secret = first.body.data.secret as string;
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{43}$/);
    expect(first.body.data).toEqual({
      object: 'webhook_endpoint',
      url: receiver.url,
      events: null,
      enabled_events: null,
      secret_hint: secret.slice(-4),
      secret,
      previous_secret_expires_at: null,
      created_at: ts.clock.now().toISOString(),
      updated_at: ts.clock.now().toISOString(),
    });
    ts.clock.advance(1000);
    const second = await put(p.sandbox, {
      url: `${receiver.url}/v2`,
      events: ['order.created', 'order.refunded', 'order.created'],
    });
    expect(second.status).toBe(200);
    expect(second.body.data).not.toHaveProperty('secret');
    expect(second.body.data).toMatchObject({
      url: `${receiver.url}/v2`,
      events: ['order.created', 'order.refunded'],
      enabled_events: ['order.created', 'order.refunded'],
      secret_hint: secret.slice(-4),
    });
    expect(second.body.data.updated_at).not.toBe(second.body.data.created_at);
    // The live environment has its own endpoint.
    expect((await put(p.live, { url: receiver.url })).status).toBe(201);
  });

  it('when the url has spaces around it, then it is stored and shown without them', async () => {
    const p = await ts.partner();
    const res = await put(p.sandbox, { url: ` \t${receiver.url}/padded \n` });
    expect(res.status).toBe(201);
    expect(res.body.data.url).toBe(`${receiver.url}/padded`);
    expect((await ts.stores.webhookEndpoints.get(p.id, 'sandbox'))?.url).toBe(`${receiver.url}/padded`);
  });

  it('when events name unknown types, then 400 naming each of them', async () => {
    const p = await ts.partner();
    const res = await put(p.sandbox, { url: receiver.url, events: ['order.created', 'order.shipped', 'payment.done'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'events' });
    expect(res.body.error.message).toContain('"order.shipped"');
    expect(res.body.error.message).toContain('"payment.done"');
  });

  it('when the key lacks webhooks:manage, then 403 insufficient_scope', async () => {
    const p = await ts.partner('Reader', ['orders:read', 'webhooks:read']);
    const res = await put(p.sandbox, { url: receiver.url });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect((await ts.http.post('/v1/webhooks/endpoint/rotate-secret').set(bearer(p.sandbox)).send({})).status).toBe(
      403,
    );
    expect((await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({})).status).toBe(403);
  });

  it('when stored, then the secret is sealed with the DATA_DIR key file, and no event holds it', async () => {
    const p = await ts.partner();
    const secret = await register(ts, p.sandbox, receiver.url);
    const stored = (await ts.stores.webhookEndpoints.get(p.id, 'sandbox'))!;
    expect(stored.secret_box).not.toContain(secret.slice(6));
    expect(decryptSecret(stored.secret_box, loadOrCreateKeyFile(ts.dataDir))).toBe(secret);
    await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
    await receiver.waitFor(receiver.received.length + 1);
    await ts.scheduler.runDue();
    const events = await ts.stores.events.readAll({ maxCount: 100_000 });
    expect(events.some((e) => e.streamId.startsWith('webhook-delivery-'))).toBe(true);
    expect(JSON.stringify(events.map((e) => [e.data, e.metadata]))).not.toContain(secret.slice(6));
  });

  it('when the secret is rotated, then both secrets sign (new first) for 24 hours, then only the new one', async () => {
    const p = await ts.partner();
    const oldSecret = await register(ts, p.sandbox, receiver.url);
    const rotated = await ts.http.post('/v1/webhooks/endpoint/rotate-secret').set(bearer(p.sandbox)).send({});
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.data.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.data).toMatchObject({
      secret_hint: newSecret.slice(-4),
      previous_secret_expires_at: new Date(ts.clock.now().getTime() + ROTATION_OVERLAP_MS).toISOString(),
    });

    const seen = receiver.received.length;
    await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
    const during = (await receiver.waitFor(seen + 1))[seen]!;
    const header = during.headers['service-signature'] as string;
    const parsed = parseSignatureHeader(header)!;
    expect(parsed.v1).toEqual([
      computeSignature(newSecret, parsed.timestamp, during.body),
      computeSignature(oldSecret, parsed.timestamp, during.body),
    ]);
    expectStripeVerifies(during, newSecret, ts.clock);
    expectStripeVerifies(during, oldSecret, ts.clock);
    expect(verifySignature({ header, body: during.body, secret: oldSecret, now: ts.clock.now() }).ok).toBe(true);

    ts.clock.advance(ROTATION_OVERLAP_MS + 1000);
    await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
    const after = (await receiver.waitFor(seen + 2))[seen + 1]!;
    expect(parseSignatureHeader(after.headers['service-signature'] as string)!.v1).toHaveLength(1);
    expectStripeVerifies(after, newSecret, ts.clock);
    expect(() =>
      Stripe.webhooks.signature!.verifyHeader(
        after.body,
        after.headers['service-signature'] as string,
        oldSecret,
        300,
        undefined,
        ts.clock.now().getTime(),
      ),
    ).toThrow(/signature/i);
  });

  it('when rotating without an endpoint, then 409 webhook_endpoint_not_configured', async () => {
    const p = await ts.partner();
    const res = await ts.http.post('/v1/webhooks/endpoint/rotate-secret').set(bearer(p.live)).send({});
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('webhook_endpoint_not_configured');
  });
});

describe('the secrets key from WEBHOOK_SECRETS_KEY', () => {
  it('when set, then secrets are sealed with it and no key file is made under DATA_DIR', async () => {
    const key = randomBytes(32).toString('base64');
    const ts = await startWebhookService({ env: { WEBHOOK_SECRETS_KEY: key } });
    try {
      const p = await ts.partner();
      const secret = await register(ts, p.sandbox, 'http://127.0.0.1:9999/hooks');
      const stored = (await ts.stores.webhookEndpoints.get(p.id, 'sandbox'))!;
      expect(decryptSecret(stored.secret_box, parseKeyFromConfig(key))).toBe(secret);
      expect(fs.existsSync(path.join(ts.dataDir, KEY_FILE_NAME))).toBe(false);
    } finally {
      await ts.close();
    }
  });
});

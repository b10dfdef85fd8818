import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from '../http/webhooks-fixture.js';

// Regressions (issue "Hardening"): every way of writing a private address in a webhook URL is
// refused at registration, through the public API only (PUT /v1/webhooks/endpoint, production rules);
// and at delivery, the connection goes to the address that was checked, with the 8 s reply wait.
// The port rules are tested elsewhere (webhook-urls.test.ts): every URL here uses the default port.

const PUBLIC_IP = '93.184.216.34';
/** Names the tests control; anything else does not resolve (no test reaches the real DNS). */
const DNS: Record<string, string[]> = {
  'hooks.example.com': [PUBLIC_IP],
  localhost: ['127.0.0.1', '::1'],
  'localhost.': ['127.0.0.1'],
};
const resolve = async (host: string) => {
  const found = DNS[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

describe('private addresses, however spelled, are refused at registration', () => {
  let ts: WebhookService;
  beforeAll(async () => {
    ts = await startWebhookService({ env: { WEBHOOKS_ALLOW_PRIVATE_URLS: 'false' }, webhooks: { resolve } });
  });
  afterAll(() => ts.close());

  const SPELLINGS: Array<[string, string]> = [
    // IPv4 in the forms the WHATWG URL parser accepts and normalises
    ['decimal', 'https://2130706433/hook'],
    ['decimal, private', 'https://167772161/hook'],
    ['decimal, cloud metadata', 'https://2852039166/latest/meta-data/'],
    ['octal', 'https://0177.0.0.1/hook'],
    ['octal, padded', 'https://0177.0000.0000.0001/hook'],
    ['octal, private', 'https://012.0.0.1/hook'],
    ['hex, dotted', 'https://0x7f.0x0.0x0.0x1/hook'],
    ['hex, one number', 'https://0x7f000001/hook'],
    ['hex, cloud metadata', 'https://0xa9fea9fe/hook'],
    ['hex and decimal mixed', 'https://0x7f.1/hook'],
    ['short, two parts', 'https://127.1/hook'],
    ['short, three parts', 'https://127.0.1/hook'],
    ['short, private', 'https://10.1/hook'],
    ['zero', 'https://0/hook'],
    ['trailing dot', 'https://127.0.0.1./hook'],
    ['percent-encoded', 'https://%31%32%37.0.0.1/hook'],
    ['full-width digits', 'https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/hook'],
    // IPv6 and IPv4 inside IPv6
    ['IPv6 loopback, long form', 'https://[0:0:0:0:0:0:0:1]/hook'],
    ['IPv6 unspecified', 'https://[::]/hook'],
    ['IPv4-mapped, dotted', 'https://[::ffff:127.0.0.1]/hook'],
    ['IPv4-mapped, hex', 'https://[::ffff:7f00:1]/hook'],
    ['IPv4-mapped, long form, metadata', 'https://[0:0:0:0:0:ffff:a9fe:a9fe]/hook'],
    ['IPv4-translated', 'https://[::ffff:0:127.0.0.1]/hook'],
    ['NAT64, dotted', 'https://[64:ff9b::127.0.0.1]/hook'],
    ['NAT64, metadata', 'https://[64:ff9b::a9fe:a9fe]/hook'],
    ['6to4, loopback', 'https://[2002:7f00:1::1]/hook'],
    ['6to4, metadata', 'https://[2002:a9fe:a9fe::1]/hook'],
    ['Teredo, private client', 'https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/hook'],
    ['Teredo, loopback client', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook'],
    // A public-looking name in the parts of a URL that are not its host
    ['userinfo naming a public host', 'https://hooks.example.com@127.0.0.1/hook'],
    ['userinfo with a password', 'https://hooks.example.com:443@10.0.0.1/hook'],
    ['credentials for a public host', 'https://user:secret@hooks.example.com/hook'],
    ['#@ (the name in the fragment)', 'https://127.0.0.1#@hooks.example.com/hook'],
    ['?@ (the name in the query)', 'https://127.0.0.1?@hooks.example.com/hook'],
    ['backslash @ (a path to the parser)', 'https://127.0.0.1\\@hooks.example.com/hook'],
  ];
  // Names: what they resolve to is not in the text, so the answer is 422 url_not_allowed (docs/api.md).
  const NAMES: Array<[string, string]> = [
    ['localhost', 'https://localhost/hook'],
    ['localhost with a trailing dot', 'https://localhost./hook'],
  ];

  it.each([
    ...SPELLINGS.map(([label, url]) => [label, url, 400, 'validation_error'] as const),
    ...NAMES.map(([label, url]) => [label, url, 422, 'url_not_allowed'] as const),
  ])('%s (%s): %d %s on url, and nothing registered', async (_label, url, status, code) => {
    const p = await ts.partner();
    const put = (body: Record<string, unknown>) => ts.http.put('/v1/webhooks/endpoint').set(bearer(p.live)).send(body);
    const res = await put({ url });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error).toMatchObject({ code, param: 'url' });
    // Nothing was registered: the first registration of a good URL is still the one that creates it.
    expect((await put({ url: 'https://hooks.example.com/hook' })).status).toBe(201);
  });

  it('the same name at a public address is registered (the spellings above differ in the address only)', async () => {
    const p = await ts.partner();
    expect(
      (
        await ts.http
          .put('/v1/webhooks/endpoint')
          .set(bearer(p.live))
          .send({ url: 'https://hooks.example.com#@127.0.0.1/hook' })
      ).status,
    ).toBe(201);
  });
});

describe('at delivery', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('the connection goes to the address the check approved: a name that answers differently on the next lookup is not looked up again', async () => {
    // Private URLs allowed (the receiver is on loopback). The name answers 127.0.0.1, where the
    // receiver listens, until `flip`; after it the first lookup (the delivery's check) still answers
    // 127.0.0.1 and every later one 127.0.0.2, where nothing listens. Only a send that connects to
    // the checked address reaches the receiver; a second lookup (or the system resolver, which does
    // not know the name) would not.
    const lookups: string[] = [];
    let flipped = false;
    let afterFlip = 0;
    const rebinding = async (host: string) => {
      if (host !== 'rebind.test')
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      const answer = flipped && afterFlip++ > 0 ? '127.0.0.2' : '127.0.0.1';
      lookups.push(answer);
      return [answer];
    };
    const ts = await startWebhookService({ webhooks: { resolve: rebinding } });
    try {
      const p = await ts.partner();
      const port = new URL(receiver.url).port;
      await register(ts, p.sandbox, `http://rebind.test:${port}/hooks`);
      flipped = true;
      const count = receiver.received.length;
      const test = await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
      expect(test.status).toBe(202);
      const delivery = await waitFor(
        async () => {
          const d = (await ts.http.get(`/v1/webhooks/deliveries/${test.body.data.id}`).set(bearer(p.sandbox))).body
            .data;
          return d.attempts.length > 0 && d;
        },
        { what: 'the first attempt to end', timeoutMs: 60_000 },
      );
      expect(delivery.attempts[0], JSON.stringify(delivery.attempts[0])).toMatchObject({ status: 200, error: null });
      expect(delivery.status).toBe('succeeded');
      const got = receiver.received[count]!;
      expect(got.event.type).toBe('webhook.test');
      expect(got.headers.host).toBe(`rebind.test:${port}`);
      expect(lookups.filter((a) => a === '127.0.0.2')).toEqual([]);
    } finally {
      await ts.close();
    }
  }, 120_000);

  it('a receiver that never answers is cut off after the 8 s reply wait, and the attempt says so', async () => {
    const ts = await startWebhookService();
    const silent = await startReceiver();
    silent.reply = () => ({ status: 200, delayMs: 120_000 });
    try {
      const p = await ts.partner();
      await register(ts, p.sandbox, silent.url);
      const test = await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
      expect(test.status).toBe(202);
      const attempt = await waitFor(
        async () =>
          (await ts.http.get(`/v1/webhooks/deliveries/${test.body.data.id}`).set(bearer(p.sandbox))).body.data
            .attempts[0],
        { what: 'the first attempt to end', timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(attempt.status).toBeNull();
      expect(attempt.error).toMatch(/timed out.*8000 ms/);
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(7_900);
      // Generous upper bound: a busy machine delays the end of an attempt, never by a minute.
      expect(attempt.duration_ms).toBeLessThan(60_000);
    } finally {
      await silent.close();
      await ts.close();
    }
  }, 120_000);
});

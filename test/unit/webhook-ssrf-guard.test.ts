import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, classifyAddress, type Resolver } from '../../src/webhooks/ssrf-guard.js';

const PUBLIC_IP = '93.184.216.34';
const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses;
const neverResolve: Resolver = async (host) => {
  throw new Error(`resolver must not be called for a literal address (got ${host})`);
};
const guarded = { allowPrivate: false, resolve: neverResolve };

describe('classifyAddress', () => {
  const cases: [string, string][] = [
    // IPv4
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['169.254.0.1', 'link_local'],
    ['100.64.0.1', 'carrier_grade_nat'],
    ['100.127.255.254', 'carrier_grade_nat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    // IPv6
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fec0::1', 'site_local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['100::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['::7f00:1', 'reserved'], // deprecated IPv4-compatible form: outside 2000::/3
    // IPv4 inside IPv6
    ['::ffff:127.0.0.1', 'ipv4_mapped:loopback'],
    ['::ffff:7f00:1', 'ipv4_mapped:loopback'],
    ['::ffff:10.0.0.1', 'ipv4_mapped:private'],
    ['::ffff:169.254.169.254', 'ipv4_mapped:link_local'],
    ['::ffff:100.64.0.1', 'ipv4_mapped:carrier_grade_nat'],
    ['::ffff:0.0.0.0', 'ipv4_mapped:unspecified'],
    ['::ffff:0:127.0.0.1', 'ipv4_translated:loopback'],
    ['64:ff9b::a9fe:a9fe', 'nat64:link_local'],
    ['64:ff9b::10.1.2.3', 'nat64:private'],
    ['64:ff9b:1::1', 'reserved'],
    ['2002:a00:1::', '6to4:private'],
    ['2002:7f00:1::1', '6to4:loopback'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo:private'], // client 10.0.0.1, stored inverted
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo:documentation'], // RFC 4380's example: client 192.0.2.45
    ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'teredo:private'], // private Teredo server
    // Public
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    [PUBLIC_IP, 'public'],
    ['11.0.0.1', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['169.253.255.255', 'public'],
    ['198.20.0.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::808:808', 'public'],
    ['2002:808:808::1', 'public'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'],
    // Not strict IP text (the URL parser normalises such forms before they get here)
    ['example.com', 'invalid'],
    ['', 'invalid'],
    ['2130706433', 'invalid'],
    ['0x7f.1', 'invalid'],
    ['127.1', 'invalid'],
    ['1.2.3.4.5', 'invalid'],
  ];

  it.each(cases)('when given %s, then it is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });
});

describe('checkWebhookUrl', () => {
  it('when an https host resolves to public addresses only, then it passes with those addresses, deduplicated', async () => {
    const result = await checkWebhookUrl('https://hooks.example.com/in?x=1', {
      allowPrivate: false,
      resolve: resolvesTo(PUBLIC_IP, '2606:4700:4700::1111', PUBLIC_IP),
    });
    expect(result).toMatchObject({ ok: true, addresses: [PUBLIC_IP, '2606:4700:4700::1111'] });
    expect(result.ok && result.url.href).toBe('https://hooks.example.com/in?x=1');
  });

  it.each([
    ['http://hooks.example.com/', /must use https/],
    ['ftp://hooks.example.com/', /must use https/],
    ['hooks.example.com/in', /not a valid absolute URL/],
    ['https://user:pw@hooks.example.com/', /user name or password/],
    ['https://user@hooks.example.com/', /user name or password/],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, /at most 2048/],
  ])('when the URL is %s, then it is refused', async (url, reason) => {
    const result = await checkWebhookUrl(url, { allowPrivate: false, resolve: resolvesTo(PUBLIC_IP) });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it('when the host resolves to a private address, then it is refused naming the kind of address, not the address', async () => {
    const result = await checkWebhookUrl('https://internal.example.com/', {
      allowPrivate: false,
      resolve: resolvesTo('10.1.2.3'),
    });
    expect(result).toEqual({
      ok: false,
      rule: 'resolved',
      reason:
        'webhook URL host "internal.example.com" resolves to a private (RFC 1918) address; only public addresses are allowed',
    });
  });

  it('when the host is a private IP address written in the URL, then the rule is the address itself, with no lookup', async () => {
    const result = await checkWebhookUrl('https://10.1.2.3/hooks', {
      allowPrivate: false,
      resolve: () => Promise.reject(new Error('no lookup expected')),
    });
    expect(result).toMatchObject({ ok: false, rule: 'address' });
    if (!result.ok) expect(result.reason).toMatch(/^webhook URL host 10\.1\.2\.3 is a private/);
  });

  it('when the host resolves to a public and a private address (rebinding), then every address counts and it is refused', async () => {
    for (const answer of [
      [PUBLIC_IP, '127.0.0.1'],
      ['::ffff:169.254.169.254', PUBLIC_IP],
      [PUBLIC_IP, 'fd00::5'],
    ]) {
      const result = await checkWebhookUrl('https://rebind.example.com/', {
        allowPrivate: false,
        resolve: resolvesTo(...answer),
      });
      expect(result.ok, answer.join(', ')).toBe(false);
    }
  });

  it('when the name answers public first and private on the next lookup, then the later check refuses it', async () => {
    const answers = [[PUBLIC_IP], ['127.0.0.1']];
    const flipping: Resolver = async () => answers.shift() ?? [];
    const atRegistration = await checkWebhookUrl('https://flip.example.com/', {
      allowPrivate: false,
      resolve: flipping,
    });
    const atDelivery = await checkWebhookUrl('https://flip.example.com/', { allowPrivate: false, resolve: flipping });
    expect(atRegistration).toMatchObject({ ok: true, addresses: [PUBLIC_IP] });
    expect(atDelivery).toMatchObject({ ok: false, reason: expect.stringMatching(/resolves to a loopback address/) });
  });

  it('when the host does not resolve or resolves to nothing, then it is refused', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await checkWebhookUrl('https://nx.example.com/', { allowPrivate: false, resolve: failing })).toEqual({
      ok: false,
      rule: 'unresolved',
      reason: 'webhook URL host "nx.example.com" could not be resolved (ENOTFOUND)',
    });
    const empty = await checkWebhookUrl('https://nx.example.com/', { allowPrivate: true, resolve: resolvesTo() });
    expect(!empty.ok && empty.reason).toMatch(/did not resolve to any address/);
  });

  it('when a resolver returns something that is not an IP address, then it is refused even with private URLs allowed', async () => {
    const result = await checkWebhookUrl('http://odd.example.com/', {
      allowPrivate: true,
      resolve: resolvesTo('not-an-ip'),
    });
    expect(!result.ok && result.reason).toMatch(/not a valid IP address/);
  });

  it.each([
    ['https://2130706433/', '127.0.0.1'],
    ['https://0x7f.1/', '127.0.0.1'],
    ['https://0177.0.0.1/', '127.0.0.1'],
    ['https://127.1/', '127.0.0.1'],
    ['https://0/', '0.0.0.0'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['https://0xa9fea9fe/', '169.254.169.254'],
    ['https://10.0.0.1:8443/hook', '10.0.0.1'],
    ['https://100.64.1.1/', '100.64.1.1'],
    ['https://[::1]/', '::1'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['https://[::ffff:7f00:1]/', '::ffff:7f00:1'],
    ['https://[fd00::1]:8443/', 'fd00::1'],
    ['https://[fe80::1]/', 'fe80::1'],
    ['https://[::]/', '::'],
    ['https://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1'],
  ])('when the URL is the literal %s, then it is refused without DNS and names %s', async (url, address) => {
    const result = await checkWebhookUrl(url, guarded);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(`host ${address} is `);
  });

  it('when the URL is a public literal IP, then it passes with that address and no DNS', async () => {
    expect(await checkWebhookUrl('https://8.8.8.8/hook', guarded)).toMatchObject({ ok: true, addresses: ['8.8.8.8'] });
    expect(await checkWebhookUrl('https://[2606:4700:4700::1111]/', guarded)).toMatchObject({
      ok: true,
      addresses: ['2606:4700:4700::1111'],
    });
  });

  it('when private URLs are allowed (local testing), then http and loopback pass with the addresses to pin', async () => {
    expect(
      await checkWebhookUrl('http://127.0.0.1:3000/hook', { allowPrivate: true, resolve: neverResolve }),
    ).toMatchObject({
      ok: true,
      addresses: ['127.0.0.1'],
    });
    expect(
      await checkWebhookUrl('http://receiver.local/', { allowPrivate: true, resolve: resolvesTo('127.0.0.1', '::1') }),
    ).toMatchObject({ ok: true, addresses: ['127.0.0.1', '::1'] });
    const ftp = await checkWebhookUrl('ftp://127.0.0.1/', { allowPrivate: true });
    expect(!ftp.ok && ftp.reason).toMatch(/must use https or http/);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'a link-local address'],
    ['http://[fe80::1]:8080/', 'a link-local address'],
    ['http://0.0.0.0:8080/', 'the unspecified address'],
    ['http://224.0.0.1:8080/', 'a multicast address'],
    ['http://100.64.1.1:8080/', 'a carrier-grade NAT'],
    ['http://192.0.2.10:8080/', 'a documentation address'],
    ['http://[::ffff:169.254.169.254]/', 'a link-local address inside an IPv4-mapped IPv6 address'],
  ])(
    'when private URLs are allowed, then %s is still refused (%s): only loopback and private hosts are added',
    async (url, what) => {
      const result = await checkWebhookUrl(url, { allowPrivate: true, resolve: neverResolve });
      expect(result.ok).toBe(false);
      expect(!result.ok && result.reason).toContain(`${what}`);
      expect(!result.ok && result.reason).toMatch(/only public, loopback or private addresses are allowed$/);
    },
  );

  it('when private URLs are allowed, then private, unique-local and mapped loopback hosts pass', async () => {
    for (const [url, address] of [
      ['http://192.168.1.20:8080/', '192.168.1.20'],
      ['http://10.0.0.1/', '10.0.0.1'],
      ['http://[fd00::1]:8443/', 'fd00::1'],
      ['http://[::ffff:127.0.0.1]:3000/', '::ffff:7f00:1'],
    ])
      expect(await checkWebhookUrl(url!, { allowPrivate: true, resolve: neverResolve })).toMatchObject({
        ok: true,
        addresses: [address],
      });
  });

  it('when no resolver is given, then the system resolver is used: localhost is refused, or allowed when private is on', async () => {
    const refused = await checkWebhookUrl('https://localhost/hook', { allowPrivate: false });
    expect(!refused.ok && refused.reason).toMatch(/resolves to .*loopback/);
    const allowed = await checkWebhookUrl('http://localhost:8080/hook', { allowPrivate: true });
    expect(allowed.ok && allowed.addresses.every((a) => classifyAddress(a) === 'loopback')).toBe(true);
  });
});

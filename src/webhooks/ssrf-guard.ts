import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// Every range a webhook must not reach. ipaddr.js names the ranges; this module decides which are
// refused and looks inside IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4, Teredo).

export type RangeReason =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'carrier_grade_nat'
  | 'unique_local'
  | 'site_local'
  | 'multicast'
  | 'broadcast'
  | 'benchmarking'
  | 'documentation'
  | 'reserved';
export type Embedding = 'ipv4_mapped' | 'ipv4_translated' | 'nat64' | '6to4' | 'teredo';
export type RefusedReason = 'invalid' | RangeReason | `${Embedding}:${RangeReason}`;

const IPV4_RANGES: Record<string, RangeReason> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier_grade_nat',
  private: 'private',
};
const IPV6_RANGES: Record<string, RangeReason> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link_local',
  multicast: 'multicast',
  uniqueLocal: 'unique_local',
  deprecatedSiteLocal: 'site_local',
  benchmarking: 'benchmarking',
};
// ipaddr.js folds these into "reserved"; naming them makes refusals easier to understand.
const NAMED = (
  [
    ['192.0.2.0/24', 'documentation'],
    ['198.51.100.0/24', 'documentation'],
    ['203.0.113.0/24', 'documentation'],
    ['198.18.0.0/15', 'benchmarking'],
    ['2001:db8::/32', 'documentation'],
    ['3fff::/20', 'documentation'],
  ] as const
).map(([cidr, reason]) => [ipaddr.parseCIDR(cidr), reason] as const);
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/** 'public' or why the address is refused. Only strict textual IPv4/IPv6 addresses are accepted. */
export function classifyAddress(ip: string): 'public' | RefusedReason {
  const family = isIP(ip);
  if (family === 4) return classifyV4(ipaddr.IPv4.parse(ip));
  if (family === 6) return classifyV6(ipaddr.IPv6.parse(ip));
  return 'invalid';
}

function named(addr: ipaddr.IPv4 | ipaddr.IPv6): RangeReason | undefined {
  return NAMED.find(([cidr]) => addr.kind() === cidr[0].kind() && addr.match(cidr))?.[1];
}

function classifyV4(addr: ipaddr.IPv4): 'public' | RangeReason {
  const range = addr.range();
  if (range === 'unicast') return 'public';
  // reserved, as112, amt and anything a later ipaddr.js adds: not a place for a webhook.
  return IPV4_RANGES[range] ?? named(addr) ?? 'reserved';
}

function embedded(addr: ipaddr.IPv6, highWordIndex: number, invert = false): 'public' | RangeReason {
  const hi = addr.parts[highWordIndex]!;
  const lo = addr.parts[highWordIndex + 1]!;
  const word = (n: number) => (invert ? ~n & 0xffff : n);
  const bytes = [word(hi) >> 8, word(hi) & 0xff, word(lo) >> 8, word(lo) & 0xff];
  return classifyV4(new ipaddr.IPv4(bytes));
}

function classifyV6(addr: ipaddr.IPv6): 'public' | RefusedReason {
  const range: string = addr.range();
  const via = (kind: Embedding, inner: 'public' | RangeReason): 'public' | RefusedReason =>
    inner === 'public' ? 'public' : `${kind}:${inner}`;
  switch (range) {
    case 'ipv4Mapped':
      return via('ipv4_mapped', embedded(addr, 6));
    case 'rfc6145':
      return via('ipv4_translated', embedded(addr, 6));
    case 'rfc6052': // 64:ff9b::/96 carries the IPv4 address last; the local-use 64:ff9b:1::/48 is not global.
      return addr.match(NAT64_WELL_KNOWN) ? via('nat64', embedded(addr, 6)) : 'reserved';
    case '6to4':
      return via('6to4', embedded(addr, 1));
    case 'teredo': {
      // The server sits in bits 32-63, the client (the real destination) inverted in the last 32.
      const server = embedded(addr, 2);
      return server === 'public' ? via('teredo', embedded(addr, 6, true)) : via('teredo', server);
    }
    case 'unicast':
      return addr.match(GLOBAL_UNICAST_V6) ? 'public' : 'reserved';
    default:
      return IPV6_RANGES[range] ?? named(addr) ?? 'reserved';
  }
}

const PHRASES: Record<RangeReason | 'invalid', string> = {
  invalid: 'not a valid IP address',
  unspecified: 'the unspecified address',
  loopback: 'a loopback address',
  private: 'a private (RFC 1918) address',
  link_local: 'a link-local address',
  carrier_grade_nat: 'a carrier-grade NAT (100.64.0.0/10) address',
  unique_local: 'a unique-local IPv6 address',
  site_local: 'a site-local IPv6 address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  benchmarking: 'a benchmarking address',
  documentation: 'a documentation address',
  reserved: 'a reserved, non-public address',
};
const EMBEDDINGS: Record<Embedding, string> = {
  ipv4_mapped: 'an IPv4-mapped IPv6 address',
  ipv4_translated: 'an IPv4-translated IPv6 address',
  nat64: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
};

/**
 * What WEBHOOKS_ALLOW_PRIVATE_URLS adds to the public addresses: a developer's own machine and
 * network (loopback, RFC 1918, unique-local IPv6, and the first two as IPv4-mapped `::ffff:`
 * addresses). Never link-local (169.254.169.254 is a cloud's metadata service), the unspecified
 * address, multicast or reserved.
 */
const LOCAL_TESTING = new Set<RefusedReason>([
  'loopback',
  'private',
  'unique_local',
  'ipv4_mapped:loopback',
  'ipv4_mapped:private',
]);

/** Human text for a refusal, e.g. "a loopback address inside an IPv4-mapped IPv6 address". */
export function describeRefusal(reason: RefusedReason): string {
  const [outer, inner] = reason.split(':') as [string, RangeReason | undefined];
  if (inner) return `${PHRASES[inner]} inside ${EMBEDDINGS[outer as Embedding]}`;
  return PHRASES[outer as RangeReason | 'invalid'];
}

export type Resolver = (host: string) => Promise<string[]>;
/** Which rule refused a URL: the delivery log names only this, never the addresses behind it. */
/** `address`: an IP address written as the host is not public; `resolved`: a host name resolves to one that is not. */
export type UrlRule = 'length' | 'syntax' | 'scheme' | 'credentials' | 'port' | 'unresolved' | 'address' | 'resolved';
export type UrlCheck = { ok: true; url: URL; addresses: string[] } | { ok: false; rule: UrlRule; reason: string };

export const MAX_URL_LENGTH = 2048;

/**
 * Ports a webhook may use: 443, and the unprivileged 1024-65535 where partners run their own
 * servers. The well-known ports below 1024 are other services (SSH on 22, SMTP on 25...): a
 * webhook sent there would probe them for the partner. 80 only with private URLs (local testing).
 */
export function webhookPortAllowed(port: number, allowPrivate: boolean): boolean {
  return port === 443 || (port >= 1024 && port <= 65_535) || (allowPrivate && port === 80);
}

/** Every address the system resolver (getaddrinfo, as a connect would) gives for the host. */
export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Checks a webhook URL at registration and again before every delivery. On success `addresses`
 * are the checked addresses the sender must connect to, so the name is never resolved twice.
 * A refusal never names the addresses a host name resolves to (the service's own DNS view).
 */
export async function checkWebhookUrl(
  raw: string,
  opts: { allowPrivate: boolean; resolve?: Resolver },
): Promise<UrlCheck> {
  if (raw.length > MAX_URL_LENGTH) return refuse('length', `must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('syntax', 'is not a valid absolute URL');
  }
  const schemeOk = url.protocol === 'https:' || (opts.allowPrivate && url.protocol === 'http:');
  if (!schemeOk) return refuse('scheme', opts.allowPrivate ? 'must use https or http' : 'must use https');
  if (url.username || url.password) return refuse('credentials', 'must not contain a user name or password');
  // The parser leaves `port` empty for the scheme's default (443, or 80 for http).
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!webhookPortAllowed(port, opts.allowPrivate)) {
    return refuse(
      'port',
      `port ${port} is not allowed: use 443 or a port from 1024 to 65535${opts.allowPrivate ? ' (or 80)' : ''}`,
    );
  }
  // The WHATWG parser has already turned 2130706433, 0x7f.1, 0177.0.0.1 and 127.1 into 127.0.0.1.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host) !== 0;
  let addresses: string[];
  try {
    addresses = literal ? [host] : [...new Set(await (opts.resolve ?? systemResolver)(host))];
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return refuse('unresolved', `host "${host}" could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  if (addresses.length === 0) return refuse('unresolved', `host "${host}" did not resolve to any address`);
  for (const address of addresses) {
    const cls = classifyAddress(address);
    if (cls === 'public' || (opts.allowPrivate && LOCAL_TESTING.has(cls))) continue;
    const what = literal ? `host ${address} is` : `host "${host}" resolves to`;
    const allowed = opts.allowPrivate ? 'public, loopback or private' : 'public';
    return refuse(
      literal ? 'address' : 'resolved',
      `${what} ${describeRefusal(cls)}; only ${allowed} addresses are allowed`,
    );
  }
  return { ok: true, url, addresses };
}

function refuse(rule: UrlRule, reason: string): UrlCheck {
  return { ok: false, rule, reason: `webhook URL ${reason}` };
}

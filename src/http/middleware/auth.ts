import type { Request, Response } from 'express';
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import { sameSecret } from '../../shared/secrets.js';
import { ApiError } from '../../domain/errors.js';
import type { KeyResolver, Principal } from '../../application/key-resolver.js';
import type { KeyRateLimiter } from '../../application/rate-limits.js';
import type { Logger } from '../../shared/logger.js';

/** A key's characters; anything else cannot be a key. */
const KEY_SHAPE = /^[A-Za-z0-9_]{1,200}$/;

/**
 * The credentials of an `Authorization` header with the Bearer scheme, matched without regard to
 * case and one or more spaces after it (RFC 9110: `auth-scheme 1*SP token68`); '' when the scheme is there with no value, null for another
 * scheme or no scheme at all.
 */
export function bearerCredentials(header: string): string | null {
  const m = /^([^ \t]+)(?: +(.*))?$/.exec(header.trim());
  if (!m || m[1]!.toLowerCase() !== 'bearer') return null;
  return m[2] ?? '';
}

function invalidKey(): ApiError {
  return new ApiError(
    'invalid_api_key',
    'The API key is not valid. Send "Authorization: Bearer <API_KEY>" with an active key.',
  );
}

export interface AuthThrottleOptions {
  logger: Logger;
  /** Failed authentications an address may make per window; past them its failures are 429. 0: no throttle. */
  failures?: number;
  windowSeconds?: number;
  /** Addresses counted at once; past them a new address counts in its wider range (see `counted`). */
  maxTracked?: number;
}

/** Generous for a client with a stale key (AUTH_FAILURES_PER_MIN sets it). */
export const AUTH_FAILURES_PER_WINDOW = 60;
export const AUTH_WINDOW_SECONDS = 60;
/** The bound on addresses counted at once: one rotating its addresses fills it, then counts per /24 or /48. */
export const AUTH_MAX_TRACKED = 10_000;

interface Failures {
  count: number;
  endsAt: number;
}

/**
 * Throttles failed authentication (API keys and the admin token) per client address, in memory
 * in each process. Only failures count, and only failures are refused: once an address has used
 * its budget in the window, each further failure from it answers 429 (with Retry-After) instead of
 * 401 until the window ends. A key that resolves passes as usual, so a broken client or a guesser
 * behind a shared address (a NAT, an unconfigured proxy) does not lock the others out. That tells a
 * guesser nothing it could use: keys are 256-bit random, it never hits one. The admin token (the
 * operations API and the console's login) may be chosen by a person: there `blocked` is asked
 * first, and a throttled address is refused every attempt, the right token too.
 *
 * At most `maxTracked` addresses are counted at once (lru-cache, no timer per entry); while that
 * many have failed within the window, a new address counts in its /24 (IPv4) or /48 (IPv6), and
 * when those fill it too the least recently failing address is forgotten.
 *
 * Log lines are sampled: the first failure of an address in a window is logged with the address,
 * and so is the moment it goes over the budget; its other failures leave no access-log line
 * (`res.locals.unlogged`) and are counted in one summary line a minute.
 */
export class AuthThrottle {
  private readonly budget: number;
  private readonly windowMs: number;
  private readonly maxTracked: number;
  private readonly counts: LRUCache<string, Failures>;
  private purgedAt = 0;
  private unlogged = 0;
  private summaryAt = Date.now();

  constructor(private readonly options: AuthThrottleOptions) {
    this.budget = options.failures ?? AUTH_FAILURES_PER_WINDOW;
    this.windowMs = (options.windowSeconds ?? AUTH_WINDOW_SECONDS) * 1000;
    this.maxTracked = options.maxTracked ?? AUTH_MAX_TRACKED;
    this.counts = new LRUCache({ max: this.maxTracked, ttl: this.windowMs });
  }

  /** Addresses (or wider ranges) with failures counted now; never more than `maxTracked`. */
  get tracked(): number {
    return this.counts.size;
  }

  /** Counts a failed authentication, then throws `error`, or 429 rate_limited once it is one too many. */
  failed(req: Request, error: ApiError): never {
    if (this.budget === 0) throw error;
    const now = Date.now();
    const { address, failures } = this.count(req, now);
    failures.count++;
    const res = req.res;
    if (failures.count <= this.budget) {
      if (failures.count === 1)
        this.options.logger.info(
          this.fields(req, address, error),
          'authentication failed (more from this address this minute are counted, not logged)',
        );
      else this.quiet(res);
      throw error;
    }
    const msLeft = failures.endsAt - now;
    if (failures.count === this.budget + 1) {
      this.options.logger.warn(
        { ...this.fields(req, address, error), failures: failures.count, retry_after_s: Math.ceil(msLeft / 1000) },
        'authentication throttled: too many failures from this address',
      );
    } else this.quiet(res);
    throw throttled(req, msLeft);
  }

  /**
   * The 429 (with Retry-After set) to answer before checking a credential at all, while the request's
   * address (or its wider range) is over its budget in this window; undefined otherwise. Counts
   * nothing. The console login asks it first, so a throttled guesser learns nothing from a right token.
   */
  blocked(req: Request): ApiError | undefined {
    if (this.budget === 0) return undefined;
    const now = Date.now();
    const { address, range } = counted(req);
    const failures = this.counts.get(address) ?? (range !== address ? this.counts.get(range) : undefined);
    if (!failures || failures.endsAt <= now || failures.count <= this.budget) return undefined;
    this.quiet(req.res);
    return throttled(req, failures.endsAt - now);
  }

  /** The counter of the request's address, or of its wider range while the table is full. */
  private count(req: Request, now: number): { address: string; failures: Failures } {
    const { address, range } = counted(req);
    let key = address;
    let failures = this.counts.get(address);
    if (!failures && this.counts.size >= this.maxTracked && range !== address) {
      if (now - this.purgedAt >= 1000) {
        this.purgedAt = now;
        this.counts.purgeStale();
      }
      if (this.counts.size >= this.maxTracked) {
        key = range;
        failures = this.counts.get(range);
      }
    }
    if (!failures || failures.endsAt <= now) {
      failures = { count: 0, endsAt: now + this.windowMs };
      this.counts.set(key, failures);
    }
    return { address: key, failures };
  }

  private fields(req: Request, address: string, error: ApiError) {
    return {
      request_id: req.res?.locals.requestId as string | undefined,
      client_address: address,
      error_code: error.code,
    };
  }

  /** Leaves the request out of the access log, counted in the next summary line. */
  private quiet(res: Response | undefined): void {
    if (res) res.locals.unlogged = true;
    this.unlogged++;
    const now = Date.now();
    if (now - this.summaryAt < this.windowMs) return;
    this.options.logger.info(
      { count: this.unlogged, seconds: Math.round((now - this.summaryAt) / 1000) },
      'failed or throttled authentication attempts not logged one by one',
    );
    this.unlogged = 0;
    this.summaryAt = now;
  }
}

function throttled(req: Request, msLeft: number): ApiError {
  const seconds = Math.max(1, Math.ceil(msLeft / 1000));
  req.res?.setHeader('Retry-After', String(seconds));
  return new ApiError(
    'rate_limited',
    `Too many failed authentication attempts from this address; retry after ${seconds} s.`,
  );
}

/** The client address as the throttle counts it (see `counted`). */
export function clientAddress(req: Request): string {
  return counted(req).address;
}

/**
 * Whom the throttle counts: the client's address (Express's `req.ip`: the socket's peer, or with
 * TRUST_PROXY the address the trusted proxy saw), an IPv6 client by its /64, which one host
 * usually has whole; `range` is the wider bucket used while the table is full (IPv4 /24, IPv6 /48).
 */
function counted(req: Request): { address: string; range: string } {
  const raw = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (!ipaddr.isValid(raw)) return { address: raw, range: raw };
  const addr = ipaddr.process(raw);
  if (addr.kind() === 'ipv4') {
    const octets = (addr as ipaddr.IPv4).octets;
    return { address: addr.toString(), range: `${octets.slice(0, 3).join('.')}.0/24` };
  }
  const parts = (addr as ipaddr.IPv6).parts.map((p) => p.toString(16));
  return { address: `${parts.slice(0, 4).join(':')}::/64`, range: `${parts.slice(0, 3).join(':')}::/48` };
}

function accepted(principal: Principal | null): Principal {
  if (!principal) throw invalidKey();
  return principal;
}

/**
 * Resolves the Bearer key; synchronous while the key's answer is cached (see KeyResolver). Unknown,
 * wrong, revoked and malformed keys take the same path: resolve, then count the failure.
 */
export function authenticator(keys: KeyResolver, throttle: AuthThrottle) {
  const failed = (req: Request) => (err: unknown) => {
    if (err instanceof ApiError && err.status === 401) return throttle.failed(req, err);
    throw err;
  };
  return (req: Request): Principal | Promise<Principal> => {
    try {
      const found = resolveKey(keys, req);
      return found instanceof Promise ? found.then(accepted).catch(failed(req)) : accepted(found);
    } catch (err) {
      return failed(req)(err);
    }
  };
}

/**
 * The Authorization header, refused when sent more than once: Node keeps only the first, and a proxy
 * or log that reads the last would see another caller than this service does.
 */
function authorization(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const raw = req.rawHeaders;
  let sent = 0;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') sent++;
  if (sent > 1) throw new ApiError('invalid_api_key', 'Send one Authorization header, not several.');
  return header;
}

function resolveKey(keys: KeyResolver, req: Request): Principal | null | Promise<Principal | null> {
  const header = authorization(req);
  if (header === undefined || header.trim() === '') throw new ApiError('missing_api_key');
  const key = bearerCredentials(header);
  // "Bearer" with nothing after it sends no key at all, as an empty header does.
  if (key === '') throw new ApiError('missing_api_key');
  if (key === null || !KEY_SHAPE.test(key)) throw invalidKey();
  return keys.resolve(key);
}

/**
 * The operations API's token check: an address over its failure budget is refused before the token
 * is compared (a person may have chosen it, so a throttled guesser learns nothing), then compared
 * as digests in constant time.
 */
export function adminGuard(token: string | undefined, throttle: AuthThrottle) {
  return (req: Request): void => {
    if (!token) throw new ApiError('not_found', 'The operations API is disabled (ADMIN_TOKEN is not set).');
    const blocked = throttle.blocked(req);
    if (blocked) throw blocked;
    let header: string | undefined;
    try {
      header = authorization(req);
    } catch (err) {
      throttle.failed(req, err as ApiError);
    }
    const sent = bearerCredentials(header ?? '');
    if (header === undefined || header.trim() === '' || sent === '') {
      throttle.failed(
        req,
        new ApiError('missing_api_key', 'No ADMIN_TOKEN was sent. Use "Authorization: Bearer <ADMIN_TOKEN>".'),
      );
    }
    if (!sameSecret(sent ?? '', token)) {
      throttle.failed(req, new ApiError('invalid_api_key', 'A valid ADMIN_TOKEN is required.'));
    }
  };
}

export function rateLimiter(limits: KeyRateLimiter) {
  return async (principal: Principal, res: Response): Promise<void> => {
    const d = await limits.consume(principal.key.id, principal.key.rate_limit_per_min);
    res.setHeader('RateLimit-Limit', String(d.limit));
    res.setHeader('RateLimit-Remaining', String(d.remaining));
    res.setHeader('RateLimit-Reset', String(d.resetSeconds));
    if (!d.allowed) {
      res.setHeader('Retry-After', String(d.resetSeconds));
      throw new ApiError(
        'rate_limited',
        `Rate limit of ${d.limit} requests per minute exceeded; retry after ${d.resetSeconds} s.`,
      );
    }
  };
}

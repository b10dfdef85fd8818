import { timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import ipaddr from 'ipaddr.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../../domain/errors.js';
import type { KeyResolver, Principal } from '../../application/key-resolver.js';
import type { KeyRateLimiter } from '../../application/rate-limits.js';
import type { Logger } from '../../shared/logger.js';

const BEARER = /^Bearer ([A-Za-z0-9_]{1,200})$/;

function invalidKey(): ApiError {
  return new ApiError('invalid_api_key', 'The API key is not valid. Send "Authorization: Bearer <API_KEY>" with an active key.');
}

export interface AuthThrottleOptions {
  logger: Logger;
  /** Failed authentications an address may make per window; the next attempts are refused until it ends. */
  failures?: number;
  windowSeconds?: number;
}

/** Generous for a client with a stale key, and a guesser gets 60 tries a minute. */
export const AUTH_FAILURES_PER_WINDOW = 60;
export const AUTH_WINDOW_SECONDS = 60;
/** Addresses over their budget held at once; past it the expired ones are dropped. */
const MAX_BLOCKED = 10_000;

/**
 * Throttles failed authentication (API keys and the admin token) per client address, in memory
 * in each process. Only failures count. Once an address has used its budget in the window, every
 * authentication attempt from it is answered 429 until the window ends, valid keys included: if a
 * valid key still passed, the 429s and the 200s would tell a guesser which of its guesses was right.
 *
 * Log lines are sampled: the first failure of an address in a window is logged with the address,
 * and so is the moment it goes over the budget; the other failures and refusals leave no access-log
 * line (`res.locals.unlogged`) and are counted in one summary line a minute.
 */
export class AuthThrottle {
  private readonly counter: RateLimiterMemory;
  private readonly budget: number;
  private readonly windowMs: number;
  /** Address -> when its window ends; a synchronous check, so a valid key costs no promise. */
  private readonly blocked = new Map<string, number>();
  private unlogged = 0;
  private summaryAt = Date.now();

  constructor(private readonly options: AuthThrottleOptions) {
    this.budget = options.failures ?? AUTH_FAILURES_PER_WINDOW;
    this.windowMs = (options.windowSeconds ?? AUTH_WINDOW_SECONDS) * 1000;
    this.counter = new RateLimiterMemory({ keyPrefix: 'auth-fail', points: this.budget, duration: this.windowMs / 1000 });
  }

  /** Throws 429 rate_limited (with Retry-After) while the request's address is over its budget. */
  check(req: Request): void {
    if (this.blocked.size === 0) return; // the usual case: no address to work out
    const address = clientAddress(req);
    const until = this.blocked.get(address);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left <= 0) {
      this.blocked.delete(address);
      return;
    }
    this.quiet(req.res);
    throw throttled(req, left);
  }

  /** Counts a failed authentication, then rejects with `error`, or with 429 once it is one too many. */
  async failed(req: Request, error: ApiError): Promise<never> {
    const address = clientAddress(req);
    const res = req.res;
    try {
      const counted = await this.counter.consume(address);
      if (counted.consumedPoints === 1) this.options.logger.info(this.fields(req, address, error), 'authentication failed (more from this address this minute are counted, not logged)');
      else this.quiet(res);
    } catch (over) {
      if (!(over instanceof RateLimiterRes)) throw over;
      this.block(address, Date.now() + over.msBeforeNext);
      if (over.consumedPoints === this.budget + 1) {
        this.options.logger.warn({ ...this.fields(req, address, error), failures: over.consumedPoints, retry_after_s: Math.ceil(over.msBeforeNext / 1000) }, 'authentication throttled: too many failures from this address');
      } else this.quiet(res);
      throw throttled(req, over.msBeforeNext);
    }
    throw error;
  }

  private fields(req: Request, address: string, error: ApiError) {
    return { request_id: req.res?.locals.requestId as string | undefined, client_address: address, error_code: error.code };
  }

  private block(address: string, until: number): void {
    if (this.blocked.size >= MAX_BLOCKED) {
      const now = Date.now();
      for (const [a, t] of this.blocked) if (t <= now) this.blocked.delete(a);
    }
    if (this.blocked.size < MAX_BLOCKED || this.blocked.has(address)) this.blocked.set(address, until);
  }

  /** Leaves the request out of the access log, counted in the next summary line. */
  private quiet(res: Response | undefined): void {
    if (res) res.locals.unlogged = true;
    this.unlogged++;
    const now = Date.now();
    if (now - this.summaryAt < this.windowMs) return;
    this.options.logger.info({ count: this.unlogged, seconds: Math.round((now - this.summaryAt) / 1000) }, 'failed or throttled authentication attempts not logged one by one');
    this.unlogged = 0;
    this.summaryAt = now;
  }
}

function throttled(req: Request, msLeft: number): ApiError {
  const seconds = Math.max(1, Math.ceil(msLeft / 1000));
  req.res?.setHeader('Retry-After', String(seconds));
  return new ApiError('rate_limited', `Too many failed authentication attempts from this address; retry after ${seconds} s.`);
}

/**
 * Whom the throttle counts: the client's address (Express's `req.ip`: the socket's peer, or with
 * TRUST_PROXY the address the trusted proxy saw), an IPv6 client by its /64, which one host
 * usually has whole.
 */
export function clientAddress(req: Request): string {
  const raw = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (!ipaddr.isValid(raw)) return raw;
  const addr = ipaddr.process(raw);
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
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
    throttle.check(req);
    try {
      const found = resolveKey(keys, req);
      return found instanceof Promise ? found.then(accepted).catch(failed(req)) : accepted(found);
    } catch (err) {
      return failed(req)(err);
    }
  };
}

function resolveKey(keys: KeyResolver, req: Request): Principal | null | Promise<Principal | null> {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') throw new ApiError('missing_api_key');
  const match = BEARER.exec(header.trim());
  if (!match) throw invalidKey();
  return keys.resolve(match[1]!);
}

/** The operations API's token check (constant time), throttled like API keys. */
export function adminGuard(token: string | undefined, throttle: AuthThrottle) {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  return async (req: Request): Promise<void> => {
    if (!expected) throw new ApiError('not_found', 'The operations API is disabled (ADMIN_TOKEN is not set).');
    throttle.check(req);
    const got = Buffer.from(req.get('authorization') ?? '');
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
      await throttle.failed(req, new ApiError('invalid_api_key', 'A valid ADMIN_TOKEN is required.'));
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
      throw new ApiError('rate_limited', `Rate limit of ${d.limit} requests per minute exceeded; retry after ${d.resetSeconds} s.`);
    }
  };
}

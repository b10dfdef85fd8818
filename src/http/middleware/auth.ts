import type { Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';
import type { KeyResolver, Principal } from '../../application/key-resolver.js';
import type { KeyRateLimiter } from '../../application/rate-limits.js';

const BEARER = /^Bearer ([A-Za-z0-9_]{1,200})$/;

function invalidKey(): ApiError {
  return new ApiError('invalid_api_key', 'The API key is not valid. Send "Authorization: Bearer <API_KEY>" with an active key.');
}

function accepted(principal: Principal | null): Principal {
  if (!principal) throw invalidKey();
  return principal;
}

/** Resolves the Bearer key; synchronous while the key's answer is cached (see KeyResolver). */
export function authenticator(keys: KeyResolver) {
  return (req: Request): Principal | Promise<Principal> => {
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw new ApiError('missing_api_key');
    }
    const match = BEARER.exec(header.trim());
    if (!match) throw invalidKey();
    const found = keys.resolve(match[1]!);
    return found instanceof Promise ? found.then(accepted) : accepted(found);
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

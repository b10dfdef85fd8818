import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1 when refused). */
  resetSeconds: number;
}

/**
 * Per-key, per-minute budgets. Keys carry their own limit, so there is one rate-limiter-flexible
 * limiter per distinct limit value, all sharing one backing store (memory, or MongoDB so that several
 * service processes share one budget).
 */
export class KeyRateLimiter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(private readonly create: (pointsPerMinute: number) => RateLimiterAbstract) {}

  async consume(keyId: string, limitPerMin: number): Promise<RateDecision> {
    let limiter = this.limiters.get(limitPerMin);
    if (!limiter) {
      limiter = this.create(limitPerMin);
      this.limiters.set(limitPerMin, limiter);
    }
    try {
      const res = await limiter.consume(keyId, 1);
      return decision(true, limitPerMin, res);
    } catch (err) {
      if (err instanceof RateLimiterRes) return decision(false, limitPerMin, err);
      throw err;
    }
  }
}

function decision(allowed: boolean, limit: number, res: RateLimiterRes): RateDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

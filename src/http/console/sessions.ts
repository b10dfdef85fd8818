import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { randomToken } from '../../shared/ids.js';

export interface ConsoleSession {
  /** The cookie's value: a bearer secret, never logged. */
  readonly secret: string;
  /** What logs name the session by (`console_session`): random, unrelated to the secret. */
  readonly logId: string;
  /** The synchronizer token every form of this session posts back. */
  readonly csrf: string;
}

/** An operator idle this long logs in again. */
export const CONSOLE_IDLE_MS = 8 * 60 * 60 * 1000;
/** Sessions kept at once; past it the least recently used is forgotten (its operator logs in again). */
const MAX_SESSIONS = 1000;

/**
 * The console's sessions, in this process's memory: a restart or another replica means logging in
 * again, which is what an admin token (not a user account) calls for.
 */
export class ConsoleSessions {
  private readonly sessions = new LRUCache<string, ConsoleSession>({
    max: MAX_SESSIONS,
    ttl: CONSOLE_IDLE_MS,
    updateAgeOnGet: true,
  });

  create(): ConsoleSession {
    const session = { secret: randomToken(32), logId: `cs_${randomToken(8)}`, csrf: randomToken(32) };
    this.sessions.set(session.secret, session);
    return session;
  }

  /** The live session of a cookie value; undefined for none, an unknown one, or one idle too long. */
  get(secret: string | undefined): ConsoleSession | undefined {
    return secret ? this.sessions.get(secret) : undefined;
  }

  end(session: ConsoleSession): void {
    this.sessions.delete(session.secret);
  }
}

/** Equal strings in time that depends on their length only. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

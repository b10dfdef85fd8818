import { createHash, createHmac, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import { sameSecret } from '../../shared/secrets.js';

export interface ConsoleSession {
  /** The random session id inside the cookie: never logged. */
  readonly id: string;
  /** What logs name the session by (`console_session`): the first 12 hex of SHA-256 of the id. */
  readonly logId: string;
  /** The CSRF token every form of this session posts back: HMAC(key, 'csrf' + id). */
  readonly csrf: string;
  readonly issuedAt: number;
  /** Absolute: a session is never extended by use. */
  readonly expiresAt: number;
}

/** A session lasts this long from its login, used or not. */
export const CONSOLE_SESSION_MS = 8 * 60 * 60 * 1000;
const VERSION = 'v1';
const b64url = (b: Buffer): string => b.toString('base64url');

/**
 * The console's sessions, held by the browser in a self-contained cookie that any replica with the
 * same ADMIN_TOKEN verifies, with no session table:
 * `v1.<session id>.<issued at ms>.<expires at ms>.<HMAC-SHA256 of the rest>`. The key is derived
 * from ADMIN_TOKEN with scrypt (a fixed label as salt), so rotating the token ends every session,
 * and a copied cookie is a slow oracle for guessing the token offline, not a fast one. The
 * CSRF token is HMAC(key, 'csrf' + session id). Nothing is stored server-side: logging out clears
 * the browser's cookie, and a copy of the cookie taken before stays valid until it expires or
 * ADMIN_TOKEN is rotated.
 */
export class ConsoleSessions {
  private readonly key: Buffer;

  constructor(
    adminToken: string,
    private readonly clock: Clock,
  ) {
    // About 50 ms once per process; every guess at the token from a cookie costs the same.
    this.key = scryptSync(adminToken, 'partner-ordering console session key v1', 32, { N: 2 ** 14, r: 8, p: 1 });
  }

  /** A new session and the cookie value that carries it. */
  create(): { session: ConsoleSession; cookie: string } {
    const id = b64url(randomBytes(32));
    const issuedAt = this.clock.now().getTime();
    const payload = `${VERSION}.${id}.${issuedAt}.${issuedAt + CONSOLE_SESSION_MS}`;
    return {
      session: this.session(id, issuedAt, issuedAt + CONSOLE_SESSION_MS),
      cookie: `${payload}.${this.mac(payload)}`,
    };
  }

  /** The session of a cookie value; undefined for none, a forged or altered one, or an expired one. */
  verify(cookie: string | undefined): ConsoleSession | undefined {
    if (!cookie) return undefined;
    const parts = cookie.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) return undefined;
    const [, id, issued, expires, mac] = parts as [string, string, string, string, string];
    const given = Buffer.from(mac, 'base64url');
    // base64url decoding skips stray characters: only the canonical spelling of a MAC is accepted.
    if (b64url(given) !== mac) return undefined;
    const expected = createHmac('sha256', this.key)
      .update(`session\u0000${parts.slice(0, 4).join('.')}`)
      .digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    if (!/^\d{1,16}$/.test(issued) || !/^\d{1,16}$/.test(expires)) return undefined;
    const issuedAt = Number(issued);
    const expiresAt = Number(expires);
    if (expiresAt - issuedAt > CONSOLE_SESSION_MS || this.clock.now().getTime() >= expiresAt) return undefined;
    return this.session(id, issuedAt, expiresAt);
  }

  /** The CSRF token a form posted, checked against the session's in constant time. */
  csrfMatches(session: ConsoleSession, given: string): boolean {
    return sameSecret(given, session.csrf);
  }

  private session(id: string, issuedAt: number, expiresAt: number): ConsoleSession {
    return {
      id,
      logId: `cs_${createHash('sha256').update(id).digest('hex').slice(0, 12)}`,
      csrf: b64url(createHmac('sha256', this.key).update(`csrf${id}`).digest()),
      issuedAt,
      expiresAt,
    };
  }

  private mac(payload: string): string {
    return b64url(createHmac('sha256', this.key).update(`session\u0000${payload}`).digest());
  }
}

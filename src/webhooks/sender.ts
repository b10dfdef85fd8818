import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import { Agent, request } from 'undici';

/**
 * Spec "Registration rules": success is any 2xx within 8 seconds, from the request (and its
 * connection, when one is opened) to the end of the response.
 */
export const DEFAULT_TIMEOUT_MS = 8000;
/** Enough to read any sensible reply; a receiver streaming more cannot hold an attempt open. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of the reply an attempt keeps for the delivery log. */
export const EXCERPT_BYTES = 1024;

export interface SendInput {
  url: string | URL;
  /** The addresses checkWebhookUrl approved; the connection goes to one of them, never to a new lookup. */
  addresses: readonly string[];
  headers: Record<string, string>;
  body: string | Buffer;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Extra trusted CA certificates (PEM), for a receiver behind a private CA in local set-ups. */
  ca?: string | Buffer;
}

export interface SendResult {
  ok: boolean;
  status: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

class AttemptTimeout extends Error {}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net/tls.connect that answers with the pre-checked addresses only. */
function pinnedLookup(addresses: readonly string[]) {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const wanted = typeof options.family === 'number' && options.family !== 0 ? options.family : null;
    const usable = entries.filter((e) => e.family !== 0 && (wanted === null || e.family === wanted));
    const first = usable[0];
    if (!first) {
      const err: NodeJS.ErrnoException = new Error(`no checked address to connect to for ${hostname}`);
      err.code = 'ENOTFOUND';
      callback(err, '', 0);
    } else if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  };
}

/** Receivers whose connections are kept between attempts (an LRU: the least recently sent to are closed). */
const MAX_KEPT_RECEIVERS = 256;
/**
 * How long an idle connection is kept when the receiver does not say; when it does (`Keep-Alive:
 * timeout`), its figure less KEEP_ALIVE_MARGIN_MS, up to undici's 10 minutes. undici never sends a
 * POST again, so a request that meets a connection the receiver is just closing is a failed attempt
 * (and a retry a minute later): this stays well under common idle timeouts that come without a hint
 * (gunicorn's 2 s). At a steady flow of events a connection is reused within milliseconds anyway.
 */
const KEEP_ALIVE_MS = 1_000;
const KEEP_ALIVE_MARGIN_MS = 1_000;

function agentFor(input: SendInput, timeoutMs: number): Agent {
  return new Agent({
    connect: { lookup: pinnedLookup(input.addresses), timeout: timeoutMs, ...(input.ca ? { ca: input.ca } : {}) },
    // The attempt's own deadline (sendWebhook) bounds the headers and the body too: one deadline,
    // judged after pending I/O (below), rather than undici's timers on their coarse clock as well.
    headersTimeout: 0,
    bodyTimeout: 0,
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveTimeoutThreshold: KEEP_ALIVE_MARGIN_MS,
  });
}

/**
 * Connections to receivers kept open between attempts (HTTP keep-alive), one agent per URL origin,
 * set of checked addresses and timeout. An attempt reuses a connection only to an address its own
 * URL check approved: when the host resolves elsewhere, its attempts get another agent. Without it
 * every attempt opened (and for https, negotiated) a connection of its own: at 200 webhooks/s to one
 * receiver, sending took 11% of the main thread's profile, 4% with kept connections.
 */
export class ReceiverConnections {
  private readonly closing = new Set<Promise<void>>();
  private readonly agents = new LRUCache<string, Agent>({
    max: MAX_KEPT_RECEIVERS,
    // Requests already on an evicted agent finish; then its connections close.
    dispose: (agent) => {
      const closed: Promise<void> = agent
        .close()
        .catch(() => undefined)
        .finally(() => this.closing.delete(closed));
      this.closing.add(closed);
    },
  });

  agent(input: SendInput, timeoutMs: number): Agent {
    // The same set of addresses in another order (DNS rotation) is the same agent.
    const addresses = [...input.addresses].sort();
    const key = JSON.stringify([new URL(input.url).origin, addresses, timeoutMs, input.ca?.toString() ?? null]);
    let agent = this.agents.get(key);
    if (!agent) {
      agent = agentFor(input, timeoutMs);
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** Waits for requests in flight, then closes every kept connection. */
  async close(): Promise<void> {
    this.agents.clear();
    await Promise.all([...this.closing]);
  }
}

/**
 * One POST of a signed webhook. Never throws: every failure is a result with an error text.
 * With `connections`, over a kept connection when there is one; else on a connection of its own.
 */
export async function sendWebhook(input: SendInput, connections?: ReceiverConnections): Promise<SendResult> {
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = input.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const deadline = new AbortController();
  // The deadline is judged after the I/O waiting at that moment is read (a turn later, as undici's
  // connect timeout): when the whole process was paused past it (a frozen container, a stalled event
  // loop), timers run before sockets are read, and an answer already received would be recorded as a
  // timeout and sent again by the retry schedule.
  let judging: NodeJS.Immediate | undefined;
  const timer = setTimeout(() => (judging = setImmediate(() => deadline.abort(new AttemptTimeout()))), timeoutMs);
  const agent = connections ? connections.agent(input, timeoutMs) : agentFor(input, timeoutMs);
  let status: number | null = null;
  try {
    const res = await request(input.url, {
      method: 'POST',
      headers: input.headers,
      body: input.body,
      dispatcher: agent,
      signal: deadline.signal,
    });
    status = res.statusCode;
    const excerpt = await readCapped(res.body, maxBytes);
    const ok = status >= 200 && status < 300;
    return { ok, status, duration_ms: elapsed(), error: ok ? null : statusError(status), response_excerpt: excerpt };
  } catch (e) {
    return { ok: false, status, duration_ms: elapsed(), error: describeError(e, timeoutMs), response_excerpt: null };
  } finally {
    clearTimeout(timer);
    clearImmediate(judging);
    if (!connections) agent.destroy().catch(() => undefined);
  }
}

/** Reads at most `maxBytes`, then stops (leaving the loop destroys the stream); returns the excerpt. */
async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<string | null> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (keptBytes < EXCERPT_BYTES) {
      kept.push(chunk.subarray(0, EXCERPT_BYTES - keptBytes));
      keptBytes += kept[kept.length - 1]!.length;
    }
    if (total >= maxBytes) break; // leaving the loop early destroys the body, and with it the connection
  }
  // Read to its end: the connection goes back to its agent for the next attempt.
  return keptBytes === 0 ? null : Buffer.concat(kept).toString('utf8');
}

/**
 * The reasons a failed attempt can give, a fixed set: the delivery log must not repeat what the
 * remote side said (a certificate's names, a redirect's target, an error text), or it would turn
 * the sender into a probe a partner could aim at other hosts.
 */
export const SEND_ERRORS = {
  redirect: 'redirect not followed: webhooks must answer 2xx themselves',
  refused: 'connection refused',
  reset: 'connection reset by the receiver',
  closed: 'connection closed by the receiver before a complete response',
  hostUnreachable: 'host unreachable',
  networkUnreachable: 'network unreachable',
  noAddress: 'no checked address to connect to',
  tlsHost: 'TLS certificate not valid for host',
  tlsExpired: 'TLS certificate expired or not yet valid',
  tlsUntrusted: 'TLS certificate not trusted',
  tlsFailed: 'TLS handshake failed',
  failed: 'request failed',
} as const;

function statusError(status: number): string {
  return status >= 300 && status < 400 ? SEND_ERRORS.redirect : `receiver answered HTTP ${status}`;
}

const CODES: Record<string, string> = {
  ECONNREFUSED: SEND_ERRORS.refused,
  ECONNRESET: SEND_ERRORS.reset,
  ECONNABORTED: SEND_ERRORS.reset,
  EPIPE: SEND_ERRORS.reset,
  UND_ERR_SOCKET: SEND_ERRORS.closed,
  EHOSTUNREACH: SEND_ERRORS.hostUnreachable,
  EHOSTDOWN: SEND_ERRORS.hostUnreachable,
  ENETUNREACH: SEND_ERRORS.networkUnreachable,
  ENOTFOUND: SEND_ERRORS.noAddress,
  ERR_TLS_CERT_ALTNAME_INVALID: SEND_ERRORS.tlsHost,
  CERT_HAS_EXPIRED: SEND_ERRORS.tlsExpired,
  CERT_NOT_YET_VALID: SEND_ERRORS.tlsExpired,
};

function describeError(e: unknown, timeoutMs: number): string {
  const timedOut = `timed out: no complete response within ${timeoutMs} ms`;
  if (e instanceof AttemptTimeout) return timedOut;
  // With several addresses Node tries each and reports an AggregateError; the first cause says enough.
  const err = (e instanceof AggregateError && e.errors[0] ? e.errors[0] : e) as { code?: unknown };
  const code = typeof err.code === 'string' ? err.code : '';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return `timed out connecting (limit ${timeoutMs} ms)`;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return timedOut;
  const known = CODES[code];
  if (known) return known;
  // The other certificate checks (self-signed, unknown issuer, revoked...): OpenSSL's codes.
  if (/CERT|ISSUER|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return SEND_ERRORS.tlsUntrusted;
  if (/TLS|SSL|EPROTO/.test(code)) return SEND_ERRORS.tlsFailed;
  return SEND_ERRORS.failed;
}

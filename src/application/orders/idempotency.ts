import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import type { EventStore } from '../../ports/event-store.js';
import type { Environment } from '../../domain/environment.js';
import { ApiError } from '../../domain/errors.js';
import { sha256Hex } from '../../shared/ids.js';
import { handleCommand } from '../command-handler.js';
import { eventMetadata } from '../event-metadata.js';
import { extend } from '../../shared/objects.js';

/**
 * An Idempotency-Key is claimed by creating its own stream (expected revision "no stream"), so
 * exactly one request can claim it, on every adapter, across processes. The claim records the
 * request's hash and the order id it will create. The key itself is stored only as a hash.
 */
export interface Claim {
  request_hash: string;
  order_id: string;
}

export const idempotencyStream = (environment: Environment, partnerId: string, key: string): string =>
  `idempotency-${environment}-${partnerId}-${sha256Hex(key).slice(0, 40)}`;

/** Hash of the JSON body with object keys sorted, so key order and whitespace do not matter. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * Keys sorted by UTF-16 code units, undefined members left out (arrays: an empty slot), otherwise
 * JSON.stringify. Stored claims hold hashes of this text: it must never change for the same body.
 */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++)
      out += (i === 0 ? '' : ',') + ((canonicalJson(value[i]) as string | undefined) ?? '');
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${out}}`;
}

/**
 * Claims kept per process by default (about 460 bytes each, with the digest of the last matching
 * body): the last second at 500 orders/s. A retry of an older one is found when its claim is
 * refused, and read then.
 */
export const DEFAULT_KEPT_CLAIMS = 500;
/**
 * Longest body remembered with a claim, in bytes (an order is about 1 KB): a longer body's retries
 * are validated and hashed each time. Only its SHA-256 is kept (the bodies themselves were 3.6 MB of
 * live heap for 10,000 claims).
 */
export const MAX_REMEMBERED_BODY = 8_192;

/** The digest a remembered body is kept as: SHA-256 of its bytes (`received` holds one byte per char, latin1). */
const bodyDigest = (received: string): string => createHash('sha256').update(received, 'latin1').digest('base64');

export class IdempotencyKeys {
  /**
   * Claims already read or written, by stream, the least recently used dropped first. A claim is the first
   * event of its stream and is never changed or removed, so a kept one is always the stored one;
   * only a key never seen here (or evicted) is read from the store.
   */
  private readonly kept: LRUCache<string, Claim> | undefined;
  /**
   * Per kept claim, the SHA-256 of the last request body (its bytes as received) found to match it
   * (dropped with the claim). Equal digests mean the same bytes.
   */
  private readonly matched = new WeakMap<Claim, string>();

  constructor(
    private readonly store: EventStore,
    capacity = DEFAULT_KEPT_CLAIMS,
  ) {
    this.kept = capacity > 0 ? new LRUCache<string, Claim>({ max: capacity }) : undefined;
  }

  async find(stream: string): Promise<Claim | null> {
    const kept = this.kept?.get(stream);
    if (kept) return kept;
    const [first] = await this.store.readStream(stream, { maxCount: 1 });
    if (!first) return null;
    const data = first.data as unknown as Claim;
    return this.keep(stream, { request_hash: data.request_hash, order_id: data.order_id });
  }

  /**
   * The claim of a retry: `received` (a request body's bytes as received, before parsing) is a
   * body this process already validated and found to match the kept claim of `stream`. Parsing and
   * validation are pure functions of those bytes, so the request is the same one again: it needs
   * neither validating nor hashing. Null when that is not known here (this never reads the store):
   * the caller then validates the body and checks it with `assertSameBody`.
   */
  retry(stream: string, received: string): Claim | null {
    const claim = this.kept?.get(stream);
    if (claim === undefined || received.length > MAX_REMEMBERED_BODY) return null;
    const matched = this.matched.get(claim);
    return matched !== undefined && matched === bodyDigest(received) ? claim : null;
  }

  /** The claim of `stream` when it is kept here; null otherwise (this never reads the store). */
  known(stream: string): Claim | null {
    return this.kept?.get(stream) ?? null;
  }

  /** Throws idempotency_conflict unless `body` (JSON data: the validated request) hashes to the claim's request hash. */
  assertSameBody(claim: Claim, body: unknown): void {
    assertSameRequest(claim, requestHash(body));
  }

  /** `received` was validated and matched `claim` (a claim won with it, or checked by `assertSameBody`): see `retry`. */
  remember(claim: Claim, received: string): void {
    if (received.length <= MAX_REMEMBERED_BODY) this.matched.set(claim, bodyDigest(received));
  }

  private keep(stream: string, claim: Claim): Claim {
    if (!this.kept) return claim;
    const frozen = Object.freeze({ request_hash: claim.request_hash, order_id: claim.order_id });
    this.kept.set(stream, frozen);
    return frozen;
  }

  /** Returns the claim that holds: ours when we won, the earlier one otherwise. */
  async claim(
    stream: string,
    claim: Claim,
    meta: { partner_id: string; environment: Environment; request_id?: string; client_request_id?: string; at: string },
  ): Promise<{ won: boolean; claim: Claim }> {
    const claimed: ClaimEvent = { type: 'IdempotencyKeyClaimed', data: extend(claim, { claimed_at: meta.at }) };
    const handled = await handleCommand(this.store, stream, CLAIMS, (held) => (held ? [] : [claimed]), {
      // Decided without reading: the caller keeps no claim of this key, and the append expects no
      // stream. When the key was claimed before (another request, another process, a claim no longer
      // kept here), the append is refused, the next read finds that claim, and nothing is decided.
      from: { state: null, revision: 'no_stream' },
      read: async () => {
        const held = await this.find(stream);
        return { state: held, revision: held ? 0 : 'no_stream' }; // a claim is the only event of its stream
      },
      metadata: () =>
        eventMetadata({
          actor: 'partner',
          cause: { requestId: meta.request_id, clientRequestId: meta.client_request_id },
          owner: meta,
          at: meta.at,
        }),
      // 'ordered': the claim need not be durable before the order is appended, only before the
      // answer, and the order's own append is durable only with the claim.
      durability: 'ordered',
    });
    if (handled.events.length > 0) return { won: true, claim: this.keep(stream, claim) };
    return { won: false, claim: handled.state! };
  }
}

type ClaimEvent = { type: 'IdempotencyKeyClaimed'; data: Claim & { claimed_at: string } };

/** A claim stream folded: its one event, the claim. */
const CLAIMS = {
  initialState: (): Claim | null => null,
  evolve: (held: Claim | null, e: ClaimEvent): Claim | null =>
    held ?? { request_hash: e.data.request_hash, order_id: e.data.order_id },
};

export function assertSameRequest(claim: Claim, hash: string): void {
  if (claim.request_hash !== hash) {
    throw new ApiError('idempotency_conflict', 'This Idempotency-Key was already used with a different request body.', {
      param: 'Idempotency-Key',
    });
  }
}

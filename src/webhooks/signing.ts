import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../shared/ids.js';
import type { EventType } from '../domain/webhook/event-types.js';

/** Spec "Limits": a receiver rejects a timestamp more than 5 minutes from its clock, either way. */
export const SIGNATURE_TOLERANCE_SEC = 300;
export const SECRET_PREFIX = 'whsec_';

/** `whsec_` + 32 random bytes (256 bits) in base62. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomToken(32);
}

/** Hex HMAC-SHA256 keyed with the whole secret text over `<t>.<raw body bytes>`. */
export function computeSignature(secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/**
 * `t=<unix>,v1=<hex>[,v1=<hex>]`: one v1 per secret, so during a rotation overlap the new and the
 * old secret both sign and a receiver holding either one verifies (the scheme Stripe uses).
 */
export function signatureHeader(secrets: readonly string[], timestamp: number, body: string | Buffer): string {
  if (secrets.length === 0) throw new Error('signatureHeader needs at least one secret');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new Error(`signature timestamp must be whole unix seconds, got ${timestamp}`);
  }
  const v1 = secrets.map((s) => `v1=${computeSignature(s, timestamp, body)}`);
  return [`t=${timestamp}`, ...v1].join(',');
}

export const WEBHOOK_HEADER_NAMES = {
  signature: 'Service-Signature',
  eventId: 'Service-Event-Id',
  eventType: 'Service-Event-Type',
  timestamp: 'Service-Timestamp',
} as const;

/** Every header of a delivery attempt (spec "Request headers"); `body` is the exact bytes sent. */
export function webhookHeaders(input: {
  secrets: readonly string[];
  timestamp: number;
  eventId: string;
  eventType: EventType;
  body: string | Buffer;
}): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    [WEBHOOK_HEADER_NAMES.signature]: signatureHeader(input.secrets, input.timestamp, input.body),
    [WEBHOOK_HEADER_NAMES.eventId]: input.eventId,
    [WEBHOOK_HEADER_NAMES.eventType]: input.eventType,
    [WEBHOOK_HEADER_NAMES.timestamp]: String(input.timestamp),
  };
}

export type VerifyResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed_header' | 'no_matching_signature' | 'timestamp_outside_tolerance' };

/** Parses `t=...,v1=...`; null when there is no single numeric t or no v1 at all. */
export function parseSignatureHeader(header: string): { timestamp: number; v1: string[] } | null {
  let timestamp: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== null || !/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      v1.push(value);
    }
  }
  return timestamp === null || v1.length === 0 ? null : { timestamp, v1 };
}

/**
 * The receiver-side check documented in docs/webhooks.md: any v1 matching (constant time) and the
 * timestamp within `toleranceSec` of `now` in either direction.
 */
export function verifySignature(input: {
  header: string;
  body: string | Buffer;
  secret: string;
  now: Date;
  toleranceSec?: number;
}): VerifyResult {
  const parsed = parseSignatureHeader(input.header);
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const expected = Buffer.from(computeSignature(input.secret, parsed.timestamp, input.body), 'hex');
  const matches = parsed.v1.some((candidate) => {
    if (!/^[0-9a-f]{64}$/i.test(candidate)) return false;
    return timingSafeEqual(Buffer.from(candidate, 'hex'), expected);
  });
  if (!matches) return { ok: false, reason: 'no_matching_signature' };
  const nowSec = Math.floor(input.now.getTime() / 1000);
  if (Math.abs(nowSec - parsed.timestamp) > (input.toleranceSec ?? SIGNATURE_TOLERANCE_SEC)) {
    return { ok: false, reason: 'timestamp_outside_tolerance' };
  }
  return { ok: true, timestamp: parsed.timestamp };
}

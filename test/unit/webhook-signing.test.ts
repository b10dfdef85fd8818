import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  newSigningSecret,
  parseSignatureHeader,
  signatureHeader,
  verifySignature,
  webhookHeaders,
} from '../../src/webhooks/signing.js';

const T = 1_760_000_000; // a fixed unix time
const AT_T = new Date(T * 1000);
const BODY = '{"id":"evt_1","object":"event","type":"order.created","data":{"order":{"note":"caf\u00e9 ✓"}}}';
const SECRET = 'whsec_test_secret_one';
const OLD_SECRET = 'whsec_test_secret_old';

// Stripe's verifier: an implementation of the same t=,v1= scheme that this code did not write.
const stripeSignature = Stripe.webhooks.signature!;

describe('signatureHeader', () => {
  it('when signed with one secret, then t and one v1 = HMAC-SHA256 over "<t>.<body bytes>"', () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`, 'utf8').digest('hex');
    expect(signatureHeader([SECRET], T, BODY)).toBe(`t=${T},v1=${expected}`);
  });

  it('when the body is a Buffer of the same bytes, then the signature is the same', () => {
    expect(signatureHeader([SECRET], T, Buffer.from(BODY, 'utf8'))).toBe(signatureHeader([SECRET], T, BODY));
  });

  it('when given no secret or a non-integer timestamp, then it refuses', () => {
    expect(() => signatureHeader([], T, BODY)).toThrow(/at least one secret/);
    expect(() => signatureHeader([SECRET], 1.5, BODY)).toThrow(/unix seconds/);
  });

  it('when two secrets sign (rotation), then there is one v1 per secret in order', () => {
    const header = signatureHeader([SECRET, OLD_SECRET], T, BODY);
    const parsed = parseSignatureHeader(header);
    expect(parsed?.timestamp).toBe(T);
    expect(parsed?.v1).toHaveLength(2);
    expect(parsed?.v1[0]).not.toBe(parsed?.v1[1]);
  });
});

describe('verifySignature', () => {
  const header = signatureHeader([SECRET], T, BODY);

  it('when the header, body and secret are untouched, then it verifies (round trip)', () => {
    expect(verifySignature({ header, body: BODY, secret: SECRET, now: AT_T })).toEqual({ ok: true, timestamp: T });
    expect(verifySignature({ header, body: Buffer.from(BODY), secret: SECRET, now: AT_T }).ok).toBe(true);
  });

  it('when one body byte changes, then it fails', () => {
    const tampered = BODY.replace('order.created', 'order.createD');
    expect(verifySignature({ header, body: tampered, secret: SECRET, now: AT_T })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('when the secret differs, then it fails', () => {
    expect(verifySignature({ header, body: BODY, secret: 'whsec_other', now: AT_T }).ok).toBe(false);
  });

  it('when the timestamp in the header is changed, then the signature no longer matches', () => {
    const moved = header.replace(`t=${T}`, `t=${T + 1}`);
    expect(verifySignature({ header: moved, body: BODY, secret: SECRET, now: AT_T })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('when the receiver clock is up to 300 s behind or ahead, then it verifies; 301 s either way fails', () => {
    const at = (offsetSec: number) => new Date((T + offsetSec) * 1000);
    for (const offset of [-300, -1, 0, 1, 300]) {
      expect(verifySignature({ header, body: BODY, secret: SECRET, now: at(offset) }).ok, `offset ${offset}`).toBe(
        true,
      );
    }
    for (const offset of [-301, 301, -86_400, 86_400]) {
      expect(verifySignature({ header, body: BODY, secret: SECRET, now: at(offset) }), `offset ${offset}`).toEqual({
        ok: false,
        reason: 'timestamp_outside_tolerance',
      });
    }
  });

  it('when a smaller tolerance is asked for, then it applies', () => {
    const now = new Date((T + 10) * 1000);
    expect(verifySignature({ header, body: BODY, secret: SECRET, now, toleranceSec: 5 }).ok).toBe(false);
  });

  it('when two v1 are present (rotation), then a receiver holding either secret verifies', () => {
    const both = signatureHeader([SECRET, OLD_SECRET], T, BODY);
    expect(verifySignature({ header: both, body: BODY, secret: SECRET, now: AT_T }).ok).toBe(true);
    expect(verifySignature({ header: both, body: BODY, secret: OLD_SECRET, now: AT_T }).ok).toBe(true);
    expect(verifySignature({ header: both, body: BODY, secret: 'whsec_third', now: AT_T }).ok).toBe(false);
  });

  it('when the header is malformed, then it says so', () => {
    const sig = signatureHeader([SECRET], T, BODY).split(',')[1]!;
    for (const bad of ['', 'garbage', `v1=${'a'.repeat(64)}`, `t=abc,${sig}`, `t=${T}`, `t=${T},t=${T},${sig}`]) {
      expect(verifySignature({ header: bad, body: BODY, secret: SECRET, now: AT_T }), bad).toEqual({
        ok: false,
        reason: 'malformed_header',
      });
    }
  });

  it('when a v1 has the wrong length or is not hex, then it is ignored rather than thrown on', () => {
    const good = signatureHeader([SECRET], T, BODY);
    const header2 = `${good},v1=abc,v1=${'z'.repeat(64)}`;
    expect(verifySignature({ header: header2, body: BODY, secret: SECRET, now: AT_T }).ok).toBe(true);
    expect(verifySignature({ header: `t=${T},v1=abc`, body: BODY, secret: SECRET, now: AT_T }).ok).toBe(false);
  });
});

describe('independent check with the official stripe package', () => {
  const now = Math.floor(Date.now() / 1000);

  it('when we sign with one secret, then Stripe verifyHeader accepts our header', () => {
    const header = signatureHeader([SECRET], now, BODY);
    expect(stripeSignature.verifyHeader(BODY, header, SECRET, 300)).toBe(true);
  });

  it('when we sign with two secrets, then Stripe accepts the header for each secret and refuses a third', () => {
    const header = signatureHeader([SECRET, OLD_SECRET], now, Buffer.from(BODY));
    expect(stripeSignature.verifyHeader(BODY, header, SECRET, 300)).toBe(true);
    expect(stripeSignature.verifyHeader(Buffer.from(BODY), header, OLD_SECRET, 300)).toBe(true);
    expect(() => stripeSignature.verifyHeader(BODY, header, 'whsec_third', 300)).toThrow(/signature/i);
  });

  it('when the body is tampered, then Stripe refuses our header too', () => {
    const header = signatureHeader([SECRET], now, BODY);
    expect(() => stripeSignature.verifyHeader(`${BODY} `, header, SECRET, 300)).toThrow(/signature/i);
  });

  it('when Stripe signs (its test helper), then our verifier accepts its header', () => {
    const header = Stripe.webhooks.generateTestHeaderString({ payload: BODY, secret: SECRET, timestamp: now });
    expect(verifySignature({ header, body: BODY, secret: SECRET, now: new Date(now * 1000) }).ok).toBe(true);
  });
});

describe('newSigningSecret', () => {
  it('when made, then it is whsec_ + base62 of at least 32 random bytes, different every time', () => {
    const a = newSigningSecret();
    const b = newSigningSecret();
    expect(a).toMatch(/^whsec_[0-9A-Za-z]{43,}$/); // 32 bytes = 256 bits = 43 base62 digits
    expect(a).not.toBe(b);
  });
});

describe('webhookHeaders', () => {
  it('when built, then it has the spec headers and the signature verifies over the same body', () => {
    const headers = webhookHeaders({
      secrets: [SECRET],
      timestamp: T,
      eventId: 'evt_1',
      eventType: 'order.created',
      body: BODY,
    });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'Service-Signature': signatureHeader([SECRET], T, BODY),
      'Service-Event-Id': 'evt_1',
      'Service-Event-Type': 'order.created',
      'Service-Timestamp': String(T),
    });
  });
});

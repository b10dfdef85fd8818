import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import type { EventStore } from '../../src/ports/event-store.js';
import {
  IdempotencyKeys,
  idempotencyStream,
  MAX_REMEMBERED_BODY,
  requestHash,
} from '../../src/application/orders/idempotency.js';

let dir: string;
let stores: SqliteEventStore[];
/** Two connections to one file: `other` stands for another process of the service. */
let here: SqliteEventStore;
let other: SqliteEventStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'order-idempotency-'));
  const file = join(dir, 'events.db');
  stores = [
    new SqliteEventStore({ file, synchronous: 'NORMAL' }),
    new SqliteEventStore({ file, synchronous: 'NORMAL' }),
  ];
  [here, other] = stores as [SqliteEventStore, SqliteEventStore];
});
afterEach(async () => {
  for (const s of stores) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const meta = { partner_id: 'ptn_1', environment: 'sandbox' as const, at: '2026-10-12T10:00:00.000Z' };
const stream = (key: string) => idempotencyStream('sandbox', 'ptn_1', key);

function countingReads(inner: EventStore) {
  const counter = { reads: 0 };
  const store = Object.create(inner) as EventStore;
  store.readStream = (...args) => {
    counter.reads++;
    return inner.readStream(...args);
  };
  return { store, counter };
}

describe('IdempotencyKeys', () => {
  it('hashes a body the same whatever its key order and undefined fields, and differently when a value changes', () => {
    const body = {
      store_id: 'st_1',
      items: [{ item_id: 'a', quantity: 2 }],
      customer: { name: 'Sara', phone: '+96550001111' },
    };
    const reordered = {
      customer: { phone: '+96550001111', name: 'Sara' },
      items: [{ quantity: 2, item_id: 'a' }],
      store_id: 'st_1',
      tip: undefined,
    };
    expect(requestHash(reordered)).toBe(requestHash(body));
    expect(requestHash({ ...body, store_id: 'st_2' })).not.toBe(requestHash(body));
    expect(requestHash({ ...body, items: [{ item_id: 'a', quantity: 3 }] })).not.toBe(requestHash(body));
  });

  it('gives the hash stored claims hold: it must never change for the same body (a replay after an upgrade)', () => {
    const body = {
      store_id: 'st_1',
      items: [{ item_id: 'a', quantity: 2, modifier_ids: ['m2', 'm1'] }],
      customer: { name: 'Sära "S"', phone: '+96550001111' },
      tip: 0.5,
      reference: null,
      delivery_address: { line1: 'Block 1', floor: undefined, location: { lat: 29.33, lng: -48.07 } },
      payment_method: 'card',
    };
    expect(requestHash(body)).toBe('97315a4aaecb5f9b446a639399b9776818cb3aeb6d2521f428de0f013115d1fd');
  });

  it('hashes any JSON body exactly as the first implementation did (the hashes of stored claims)', () => {
    const reference = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
      if (value !== null && typeof value === 'object') {
        const entries = Object.entries(value as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
      }
      return JSON.stringify(value);
    };
    const withUndefined = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 2 }),
        fc.constant(undefined),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: 'binary' }), tie('value'), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'binary' }), withUndefined, { maxKeys: 8 }), (body) => {
        expect(requestHash(body)).toBe(createHash('sha256').update(reference(body)).digest('hex'));
      }),
      { numRuns: 500, seed: 3 },
    );
  });

  it('when a key was claimed here, then finding it again reads nothing from the store', async () => {
    const { store, counter } = countingReads(here);
    const keys = new IdempotencyKeys(store);
    const claim = { request_hash: 'h1', order_id: 'sbx_1' };
    expect(await keys.claim(stream('key-0001'), claim, meta)).toEqual({ won: true, claim });
    expect(await keys.find(stream('key-0001'))).toEqual(claim);
    expect(await keys.find(stream('key-0001'))).toEqual(claim);
    expect(counter.reads).toBe(0);
  });

  it('when another process claimed a key, then it is found in the store once, and claiming it here loses to theirs', async () => {
    const theirs = new IdempotencyKeys(other);
    const { store, counter } = countingReads(here);
    const ours = new IdempotencyKeys(store);
    expect(await ours.find(stream('key-0002'))).toBeNull();
    await theirs.claim(stream('key-0002'), { request_hash: 'h-theirs', order_id: 'sbx_theirs' }, meta);
    // A key not found before is read again: only found claims are kept.
    expect(await ours.find(stream('key-0002'))).toEqual({ request_hash: 'h-theirs', order_id: 'sbx_theirs' });
    expect(await ours.find(stream('key-0002'))).toEqual({ request_hash: 'h-theirs', order_id: 'sbx_theirs' });
    expect(counter.reads).toBe(2);
    await theirs.claim(stream('key-0004'), { request_hash: 'h-theirs', order_id: 'sbx_theirs4' }, meta);
    const race = await ours.claim(stream('key-0004'), { request_hash: 'h-ours', order_id: 'sbx_ours4' }, meta);
    expect(race).toEqual({ won: false, claim: { request_hash: 'h-theirs', order_id: 'sbx_theirs4' } });
  });

  it('accepts a body as the request of a claim only when it hashes to the claim, however often it is checked', async () => {
    const keys = new IdempotencyKeys(here);
    const body = { store_id: 'st_1', items: [{ item_id: 'a', quantity: 2 }] };
    const reordered = { items: [{ quantity: 2, item_id: 'a' }], store_id: 'st_1' };
    const other = { store_id: 'st_1', items: [{ item_id: 'a', quantity: 3 }] };
    const mine = (await keys.claim(stream('key-0005'), { request_hash: requestHash(body), order_id: 'sbx_5' }, meta))
      .claim;
    const theirs = (await keys.claim(stream('key-0006'), { request_hash: requestHash(other), order_id: 'sbx_6' }, meta))
      .claim;
    for (let i = 0; i < 2; i++) {
      expect(() => keys.assertSameBody(mine, body)).not.toThrow();
      expect(() => keys.assertSameBody(mine, reordered)).not.toThrow();
      expect(() => keys.assertSameBody(mine, other)).toThrow(expect.objectContaining({ code: 'idempotency_conflict' }));
      // A body remembered as matching one claim says nothing about another.
      expect(() => keys.assertSameBody(theirs, body)).toThrow(
        expect.objectContaining({ code: 'idempotency_conflict' }),
      );
      expect(() => keys.assertSameBody(theirs, other)).not.toThrow();
    }
  });

  it('knows a retry only by a body text remembered for the kept claim: never from the store, never across keys', async () => {
    const { store, counter } = countingReads(here);
    const keys = new IdempotencyKeys(store);
    const text = JSON.stringify({ store_id: 'st_1', items: [{ item_id: 'a', quantity: 2 }] });
    expect(keys.retry(stream('key-0007'), text)).toBeNull();
    const { claim } = await keys.claim(stream('key-0007'), { request_hash: 'h7', order_id: 'sbx_7' }, meta);
    // Claimed, but no body was validated and matched to it yet.
    expect(keys.retry(stream('key-0007'), text)).toBeNull();
    keys.remember(claim, text);
    expect(keys.retry(stream('key-0007'), text)).toBe(claim);
    // Any other text, even the same data with its keys in another order, is validated and hashed again.
    expect(
      keys.retry(stream('key-0007'), JSON.stringify({ items: [{ item_id: 'a', quantity: 2 }], store_id: 'st_1' })),
    ).toBeNull();
    expect(keys.retry(stream('key-0008'), text)).toBeNull();
    // A key claimed by another process is not assumed to be a retry of anything.
    await new IdempotencyKeys(other).claim(stream('key-0009'), { request_hash: 'h9', order_id: 'sbx_9' }, meta);
    expect(keys.retry(stream('key-0009'), text)).toBeNull();
    expect(counter.reads).toBe(0);
  });

  it('remembers no body text longer than MAX_REMEMBERED_BODY: its retries are validated and hashed each time', async () => {
    const keys = new IdempotencyKeys(here);
    const { claim } = await keys.claim(stream('key-000f'), { request_hash: 'hf', order_id: 'sbx_f' }, meta);
    const long = JSON.stringify({ reference: 'r'.repeat(MAX_REMEMBERED_BODY) });
    keys.remember(claim, long);
    expect(keys.retry(stream('key-000f'), long)).toBeNull();
    const short = JSON.stringify({ reference: 'r'.repeat(MAX_REMEMBERED_BODY - 20) });
    keys.remember(claim, short);
    expect(keys.retry(stream('key-000f'), short)).toBe(claim);
  });

  it('forgets a remembered body with its claim when the claim leaves the bounded cache', async () => {
    const keys = new IdempotencyKeys(here, 1);
    const text = '{"store_id":"st_1"}';
    const first = (await keys.claim(stream('key-000d'), { request_hash: 'hd', order_id: 'sbx_d' }, meta)).claim;
    keys.remember(first, text);
    expect(keys.retry(stream('key-000d'), text)).toBe(first);
    await keys.claim(stream('key-000e'), { request_hash: 'he', order_id: 'sbx_e' }, meta);
    expect(keys.retry(stream('key-000d'), text)).toBeNull();
    // Read from the store again, it is a claim like any other: its body is checked again before it is remembered.
    expect(await keys.find(stream('key-000d'))).toEqual({ request_hash: 'hd', order_id: 'sbx_d' });
    expect(keys.retry(stream('key-000d'), text)).toBeNull();
  });

  it('keeps a bounded number of claims: the least recently used is read from the store again', async () => {
    const { store, counter } = countingReads(here);
    const keys = new IdempotencyKeys(store, 2);
    for (const k of ['key-000a', 'key-000b', 'key-000c'])
      await keys.claim(stream(k), { request_hash: k, order_id: `sbx_${k}` }, meta);
    expect(counter.reads).toBe(0);
    expect(await keys.find(stream('key-000a'))).toEqual({ request_hash: 'key-000a', order_id: 'sbx_key-000a' });
    expect(counter.reads).toBe(1);
    expect(await keys.find(stream('key-000c'))).toEqual({ request_hash: 'key-000c', order_id: 'sbx_key-000c' });
    expect(counter.reads).toBe(1);
  });
});

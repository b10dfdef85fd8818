import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../../src/ports/event-store.js';
import type { ReadModelStore } from '../../src/ports/read-model-store.js';
import { createLogger } from '../../src/shared/logger.js';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import { placeOrder } from '../support/orders.js';
import { bearer, startTestService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

// The read-model store goes away (MongoDB down) while the log, embedded, still takes orders: every
// projection that fails then follows the log on its own from its checkpoint, and the checkpoint
// cannot be read either. Once the store is back, each catches up by itself, without a restart.

const lines: LogLine[] = [];
let t: TestService;
let key: string;
let down = false;

/** The store, failing every call as an unreachable MongoDB does while `down`. */
function outageable(store: ReadModelStore): ReadModelStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (down) {
          const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
          return Promise.reject(new StorageUnavailableError('read-model store', 'unreachable', { cause }));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

beforeAll(async () => {
  t = await startTestService({
    logger: createLogger({ level: 'info', destination: jsonLineSink(lines) }),
    readModels: outageable,
  });
  key = (await t.partner({ name: 'Outage' })).sandbox;
});
afterAll(async () => {
  down = false;
  await t.close();
});

const listed = async (reference: string) =>
  ((await t.http.get('/v1/orders').query({ reference }).set(bearer(key))).body.data ?? []) as unknown[];

describe('the read-model store unreachable for a while', () => {
  it('when orders are placed during the outage, then once it is back every read model catches up without a restart', async () => {
    expect((await placeOrder(t.http, key, { reference: 'before' })).status).toBe(201);
    await waitFor(async () => (await listed('before')).length === 1, { what: 'the first order listed' });

    down = true;
    expect((await placeOrder(t.http, key, { reference: 'during' })).status).toBe(201);
    // Each read model fails on the order, then cannot read its checkpoint to follow the log alone.
    await waitFor(
      () =>
        lines.some(
          (l) => l.msg === 'projection failed; it follows the log on its own' && l.projection === 'orders-list',
        ),
      { what: 'orders-list failing' },
    );
    down = false;

    await waitFor(async () => (await listed('during')).length === 1, {
      what: 'the order placed during the outage listed',
      timeoutMs: 60_000,
    });
    const ready = await t.http.get('/readyz');
    expect(ready.body.data.checks.read_models).toBe('ok');
  }, 90_000);
});

import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerAdmin } from '../../src/application/partners.js';
import { loadConfig } from '../../src/config.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { StorageUnavailableError } from '../../src/ports/event-store.js';
import type { ReadModelStore } from '../../src/ports/read-model-store.js';
import { systemClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { http, type Http } from '../support/http.js';
import { demoCatalog, placeOrder } from '../support/orders.js';
import { bearer, tempDataDir } from '../support/service.js';
import { waitFor } from '../support/wait.js';

// The read-model store goes away (MongoDB down) while the log, embedded, still takes orders: every
// projection that fails then follows the log on its own from its checkpoint, and the checkpoint
// cannot be read either. Once the store is back, each catches up by itself, without a restart.

const lines: LogLine[] = [];
let dataDir: string;
let stores: Stores;
let service: Service;
let api: Http;
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
  dataDir = tempDataDir();
  const logger = createLogger({ level: 'info', destination: jsonLineSink(lines) });
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  stores = await openStores(config, { logger });
  service = await buildService(
    config,
    { ...stores, readModels: outageable(stores.readModels) },
    {
      logger,
      clock: systemClock,
      webhooks: { lease: { ttlMs: 6 * 3600_000, tickMs: 3600_000 } },
    },
  );
  await service.services.catalog.import(demoCatalog());
  api = http(service.app);
  key = (await new PartnerAdmin(stores.partners, systemClock, 1200).createPartner({ name: 'Outage' })).sandbox.key;
});
afterAll(async () => {
  down = false;
  await service.stop();
  await stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const listed = async (reference: string) =>
  ((await api.get('/v1/orders').query({ reference }).set(bearer(key))).body.data ?? []) as unknown[];

describe('the read-model store unreachable for a while', () => {
  it('when orders are placed during the outage, then once it is back every read model catches up without a restart', async () => {
    expect((await placeOrder(api, key, { reference: 'before' })).status).toBe(201);
    await waitFor(async () => (await listed('before')).length === 1, { what: 'the first order listed' });

    down = true;
    expect((await placeOrder(api, key, { reference: 'during' })).status).toBe(201);
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
    const ready = await api.get('/readyz');
    expect(ready.body.data.checks.read_models).toBe('ok');
  }, 90_000);
});

import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Durability } from '../../src/adapters/sqlite/event-store-group-commit.js';
import { PartnerAdmin } from '../../src/application/partners.js';
import { loadConfig, type Config } from '../../src/config.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger, type Logger } from '../../src/shared/logger.js';
import { http, type Http } from '../support/http.js';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import { demoCatalog, newKey, orderBody } from '../support/orders.js';
import { bearer, tempDataDir } from '../support/service.js';
import { dispatcherIdle } from '../support/webhook-events.js';

// A failed fsync of the embedded log (synchronous=FULL), made real at the one call that syncs it:
// the adapter's own fdatasync fails once with EIO, as a disk's write-back error reports, and works
// again after, as Linux reports the next fsync clean even when the failed pages are lost. Nothing
// may be acknowledged on that later fsync's word; a restart recovers the log from what is on disk.

const lines: LogLine[] = [];
const clock = new ManualClock();
let dataDir: string;
let config: Config;
let logger: Logger;
let stores: Stores;
let service: Service;
let api: Http;
let key: string;

async function start(): Promise<void> {
  stores = await openStores(config, { logger });
  service = await buildService(config, stores, {
    logger,
    clock,
    webhooks: { lease: { ttlMs: 6 * 3600_000, tickMs: 3600_000 } },
  });
  api = http(service.app);
}

async function stop(): Promise<void> {
  await service.stop();
  await stores.close();
}

/** The next fsync of the log fails with EIO; the ones after it work. */
function failNextSync(): void {
  // The test's hook into the real adapter: the object its group commit syncs the log through.
  const durability = (stores.events as unknown as { durability: Durability }).durability;
  const sync = durability.sync;
  durability.sync = () => {
    durability.sync = sync;
    return Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', syscall: 'fdatasync' }));
  };
}

const body = orderBody();
const refusedKey = newKey();
const laterKey = newKey();
const place = (idempotencyKey: string) =>
  api.post('/v1/orders').set(bearer(key)).set('Idempotency-Key', idempotencyKey).send(body);

beforeAll(async () => {
  dataDir = tempDataDir();
  logger = createLogger({ level: 'info', destination: jsonLineSink(lines) });
  config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info', SQLITE_SYNCHRONOUS: 'FULL' });
  await start();
  await service.services.catalog.import(demoCatalog());
  key = (await new PartnerAdmin(stores.partners, clock, 1200).createPartner({ name: 'Failing Disk' })).sandbox.key;
});
afterAll(async () => {
  await stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a failed fsync of the embedded event log', () => {
  let placedBefore: string;

  it('when it fails, then the order it covered and every later write are refused 503, and /readyz asks for a restart', async () => {
    const before = await place(newKey());
    expect(before.status).toBe(201);
    placedBefore = before.body.data.id as string;
    await dispatcherIdle(service);
    await stores.events.whenDurable(); // no earlier commit waits for a sync: the one that fails is the order's

    failNextSync();
    const refused = await place(refusedKey);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.body.error.code).toBe('storage_unavailable');

    // The next fsync would succeed: the order is still refused, and so is a retry of the first.
    const later = await place(laterKey);
    expect(later.status).toBe(503);
    expect(later.body.error.code).toBe('storage_unavailable');
    expect((await place(refusedKey)).status).toBe(503);

    const ready = await api.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.error).toMatchObject({
      code: 'storage_unavailable',
      message:
        'Not ready: the event store refuses writes until the service restarts: an fsync of its log failed (EIO).',
    });
    expect((await api.get('/healthz')).status).toBe(200); // alive: reads are still answered
    expect((await api.get(`/v1/orders/${placedBefore}`).set(bearer(key))).status).toBe(200);
  });

  it('when the service restarts, then writes work again and each refused order, retried, exists once', async () => {
    await stop();
    await start();
    expect((await api.get('/readyz')).status).toBe(200);

    // The refused order's commit reached the disk here (no power was lost): its retry finds it, as
    // any retry of a placed order (200, not 201).
    const retried = await place(refusedKey);
    expect(retried.status).toBe(200);
    expect((await place(refusedKey)).body.data.id).toBe(retried.body.data.id);
    const later = await place(laterKey);
    expect(later.status).toBe(201);
    expect(later.body.data.id).not.toBe(retried.body.data.id);

    const listed = await api.get('/v1/orders?limit=100').set(bearer(key));
    expect(listed.status).toBe(200);
    const ids = (listed.body.data as Array<{ id: string }>).map((o) => o.id).sort();
    expect(ids).toEqual([placedBefore, retried.body.data.id, later.body.data.id].sort());
  });

  it('when it happened, then the log says once that writes fail, never that they work again before the restart, and no 500', () => {
    expect(lines.filter((l) => l.msg === 'event store writes fail: storage unavailable')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'event store writes work again')).toEqual([]);
    expect(lines.filter((l) => l.msg === 'unhandled error' || l.status === 500)).toEqual([]);
  });
});

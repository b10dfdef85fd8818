import fs from 'node:fs';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PartnerAdmin } from '../../src/application/partners.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { loadConfig } from '../../src/config.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { StorageUnavailableError } from '../../src/ports/event-store.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { http, type Http } from '../support/http.js';
import { demoCatalog, placeOrder } from '../support/orders.js';
import { tempDataDir } from '../support/service.js';
import { dispatcherIdle } from '../support/webhook-events.js';

// A full disk, made real for the embedded event store without root: SQLite's max_page_count on the
// store's own connection makes its writes fail with SQLITE_FULL, as a full file system does. The
// API answers 503 storage_unavailable with Retry-After (not 500), /readyz fails saying why while
// writes fail, and both recover once space is back, with no restart.

const lines: LogLine[] = [];
let dataDir: string;
let stores: Stores;
let service: Service;
let api: Http;
let key: string;
let log: Database.Database;

beforeAll(async () => {
  dataDir = tempDataDir();
  const sink = jsonLineSink(lines);
  const logger = createLogger({ level: 'info', destination: sink });
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info', SQLITE_SYNCHRONOUS: 'NORMAL' });
  const clock = new ManualClock();
  stores = await openStores(config, { logger });
  service = await buildService(config, stores, {
    logger,
    clock,
    webhooks: { lease: { ttlMs: 6 * 3600_000, tickMs: 3600_000 } },
  });
  await service.services.catalog.import(demoCatalog());
  api = http(service.app);
  key = (await new PartnerAdmin(stores.partners, clock, 1200).createPartner({ name: 'Full Disk' })).sandbox.key;
  // The test's hook into the real adapter: its connection, to cap the file's size.
  log = (stores.events as unknown as { db: Database.Database }).db;
});
afterAll(async () => {
  log.pragma('max_page_count = 1073741823');
  await service.stop();
  await stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Caps the log at its current size and fills what room is left, so no write fits. */
async function fillTheDisk(): Promise<void> {
  log.pragma(`max_page_count = ${log.pragma('page_count', { simple: true }) as number}`);
  for (let i = 0; ; i++) {
    try {
      await stores.events.append(`filler-${i}`, [{ type: 'Filler', data: { i }, metadata: {} }], {
        expectedRevision: 'any',
      });
    } catch (err) {
      expect(err).toBeInstanceOf(StorageUnavailableError);
      expect(err).toMatchObject({
        reason: 'full',
        message: 'the event store cannot write: its storage is full (SQLITE_FULL)',
      });
      return;
    }
  }
}

describe('a full disk under the embedded event store', () => {
  it('when an order cannot be stored, then 503 storage_unavailable with Retry-After, and /readyz fails saying why', async () => {
    expect((await placeOrder(api, key)).status).toBe(201);
    // Whatever the dispatcher writes in the background (none without an endpoint) lands before the
    // disk fills: a write of its landing in the last free pages would read as space having come back.
    await dispatcherIdle(service);
    await fillTheDisk();

    const res = await placeOrder(api, key);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.body.error).toMatchObject({ code: 'storage_unavailable', request_id: res.headers['x-request-id'] });
    expect(res.body.error.message).not.toMatch(/SQLITE/); // partners learn it is retryable, not the internals

    const ready = await api.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.headers['retry-after']).toBe('30');
    expect(ready.body.error).toMatchObject({
      code: 'storage_unavailable',
      message: 'Not ready: the event store cannot write: its storage is full (SQLITE_FULL).',
    });
    expect((await api.get('/healthz')).status).toBe(200); // alive, only not ready
  });

  it('when space comes back, then /readyz is ok again and orders are stored, with no restart', async () => {
    log.pragma('max_page_count = 1073741823');
    const ready = await api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.data.status).toBe('ok');
    expect((await placeOrder(api, key)).status).toBe(201);
  });

  it('when it happened, then the log has one JSON line when writes started failing and one when they worked again, and no 500', async () => {
    expect(lines.filter((l) => l.msg === 'event store writes fail: storage unavailable')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'event store writes work again')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'unhandled error' || l.status === 500)).toEqual([]);
    const refused = lines.filter((l) => l.msg === 'request failed' && l.error_code === 'storage_unavailable');
    expect(refused.length).toBeGreaterThanOrEqual(2);
  });
});

describe('the event store reports its background failures to the logger', () => {
  it('when its WAL checkpointer fails, then one JSON log line says so, and nothing is printed to stderr', async () => {
    const dir = tempDataDir();
    const file = path.join(dir, 'events.db');
    const found: LogLine[] = [];
    const logger = createLogger({ level: 'info', destination: jsonLineSink(found) });
    const stderr = vi.spyOn(console, 'error');
    const store = new SqliteEventStore({ file, synchronous: 'NORMAL', logger });
    try {
      // The checkpointer opens its own connection to the path on its first run: make that fail,
      // while the store's open connection keeps working.
      fs.renameSync(file, `${file}.moved`);
      fs.mkdirSync(file);
      expect(await store.checkpoint()).toMatchObject({ error: 'unable to open database file' });
      const deadline = Date.now() + 10_000;
      while (found.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({
        level: 50,
        msg: 'WAL checkpointer stopped; SQLite checkpoints on commit from now on',
        err: { message: 'WAL checkpoint failed: unable to open database file' },
      });
      expect(stderr).not.toHaveBeenCalled();
      await store.append('s-1', [{ type: 'T', data: {}, metadata: {} }], { expectedRevision: 'any' });
    } finally {
      stderr.mockRestore();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { randomUUID } from 'node:crypto';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerAdmin } from '../../src/application/partners.js';
import { loadConfig } from '../../src/config.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { systemClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { http, type Http } from '../support/http.js';
import { demoCatalog, placeOrder } from '../support/orders.js';
import { tempDataDir } from '../support/service.js';

// A damaged event that PRAGMA quick_check does not find (its data is not JSON): the service keeps
// serving, the projections that read it stop at it and retry with a growing pause, and /readyz
// stays 200 but names them in checks.read_models (docs/operations.md, Health).

const lines: LogLine[] = [];
let dataDir: string;
let stores: Stores;
let service: Service;
let api: Http;
let key: string;

beforeAll(async () => {
  dataDir = tempDataDir();
  const sink = jsonLineSink(lines);
  const logger = createLogger({ level: 'info', destination: sink });
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  stores = await openStores(config, { logger });
  service = await buildService(config, stores, {
    logger,
    clock: systemClock,
    webhooks: { lease: { ttlMs: 6 * 3600_000, tickMs: 3600_000 } },
  });
  await service.services.catalog.import(demoCatalog());
  api = http(service.app);
  key = (await new PartnerAdmin(stores.partners, systemClock, 1200).createPartner({ name: 'Poison' })).sandbox.key;
});
afterAll(async () => {
  await service.stop();
  await stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('an event whose stored data is not JSON', () => {
  it('when the projections stop at it, then /readyz stays 200 naming them, and the restarts are logged at a falling rate', async () => {
    expect((await placeOrder(api, key)).status).toBe(201);
    const ready = await api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.data.checks.read_models).toBe('ok');

    const file = new Database(path.join(dataDir, 'events.db'));
    try {
      file
        .prepare(
          'INSERT INTO events (stream_id, revision, id, type, data, metadata, recorded_at) VALUES (?, 0, ?, ?, ?, ?, ?)',
        )
        .run('order-ord_poison', randomUUID(), 'OrderPlaced', '{"order_id": "ord_poison", ', '{}', Date.now());
    } finally {
      file.close();
    }
    expect((await placeOrder(api, key)).status).toBe(201); // writes still work

    const started = Date.now();
    let body: { data: { checks: Record<string, string> } } | undefined;
    while (Date.now() - started < 15_000) {
      const res = await api.get('/readyz');
      expect(res.status).toBe(200);
      body = res.body as typeof body;
      if (body!.data.checks.read_models !== 'ok') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(body!.data.checks.read_models).toMatch(
      /(^|; )orders-list stuck after position \d+ \(\d+ failures: SyntaxError: [^;]*\)/,
    );

    // 1 s, 2 s, 4 s, ... between restarts: in 8 s a runner fails at most 5 times, not 8.
    await new Promise((resolve) => setTimeout(resolve, 8_000 - (Date.now() - started)));
    const restarts = lines.filter(
      (l) => l.msg === 'projection stopped; restarting from its checkpoint' && l.projection === 'orders-list',
    );
    expect(restarts.length).toBeGreaterThanOrEqual(3);
    expect(restarts.length).toBeLessThanOrEqual(5);
    expect(restarts.map((l) => l.retry_in_ms)).toEqual([1000, 2000, 4000, 8000, 16000].slice(0, restarts.length));
  }, 30_000);
});

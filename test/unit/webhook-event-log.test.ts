import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import type { EventRecordedData } from '../../src/domain/webhook/event-records.js';
import { EventLog } from '../../src/webhooks/event-log.js';

let dir: string;
let store: SqliteEventStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'event-log-'));
  store = new SqliteEventStore({ file: join(dir, 'events.db') });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const T = '2026-11-21T12:00:00.000Z';
const record = (id: string, typeIndex: number): EventRecordedData => ({
  partner_id: 'ptr_1',
  environment: 'sandbox',
  order_id: 'sbx_1',
  order_revision: 0,
  type_index: typeIndex,
  event: {
    id,
    object: 'event',
    type: 'order.created',
    created: T,
    environment: 'sandbox',
    data: { message: 'x', partner_id: 'ptr_1' },
  },
});
const cause = { causationId: 'src_1', correlationId: null, requestId: null };
const recordedIds = async () =>
  (await store.readStream('webhook-events-src_1')).map((e) => (e.data as unknown as EventRecordedData).event.id);

describe('the event log of webhook events no delivery carries', () => {
  it('when a source event is handled again, then what was recorded is not recorded twice, and what is missing is added', async () => {
    const log = new EventLog(store);
    await log.record('src_1', [record('evt_a', 0)], cause, T);
    await log.record('src_1', [record('evt_a', 0)], cause, T);
    expect(await recordedIds()).toEqual(['evt_a']);
    // Handled again after the endpoint's enabled_events changed: evt_b is no longer sent, so it is recorded now.
    await log.record('src_1', [record('evt_a', 0), record('evt_b', 1)], cause, T);
    expect(await recordedIds()).toEqual(['evt_a', 'evt_b']);
  });
});

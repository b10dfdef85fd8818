import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { webhookDeliveries, DELIVERY_LOG_RETENTION } from '../../projections/webhook-deliveries.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { DeliveryEvent, DeliveryScheduledData } from '../../src/domain/webhook/delivery-events.js';
import { foldDelivery } from '../../src/domain/webhook/delivery-state.js';
import { DeliveryLog } from '../../src/webhooks/delivery-log.js';
import { trackUnfinished } from '../../src/webhooks/module.js';
import { DeliveryScheduler } from '../../src/webhooks/scheduler.js';

// The sender's rescan (every 5 s) puts on its agenda the unfinished deliveries it does not know,
// which it finds in the delivery read model. That model trails the log by the next sync and its
// projection, so what it lists may already have been sent here.

const T0 = '2026-11-21T12:00:00.000Z';
const noCause = { causationId: null, correlationId: null, requestId: null };

let dir: string;
let events: SqliteEventStore;
let readModels: SqliteReadModelStore;
let log: DeliveryLog;
let scheduler: DeliveryScheduler;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rescan-'));
  events = new SqliteEventStore({ file: join(dir, 'events.db'), synchronous: 'NORMAL' });
  readModels = new SqliteReadModelStore(join(dir, 'rm.db'));
  readModels.ensureIndexes(webhookDeliveries.collection, webhookDeliveries.indexes ?? [], {
    retention: DELIVERY_LOG_RETENTION,
  });
  log = new DeliveryLog(events);
  // Not started: tracking only fills the agenda, nothing is attempted.
  scheduler = new DeliveryScheduler({ attempt: async () => null, clock: new ManualClock(T0) });
});
afterEach(async () => {
  await events.close();
  await readModels.close();
  rmSync(dir, { recursive: true, force: true });
});

function scheduledData(n: number): DeliveryScheduledData {
  return {
    delivery_id: `whd_${n}`,
    partner_id: 'ptn_1',
    environment: 'live',
    event_id: `evt_${n}`,
    event_type: 'order.created',
    order_id: 'ord_1',
    order_revision: n,
    type_index: 0,
    url: 'https://partner.example/hooks',
    event: { id: `evt_${n}`, type: 'order.created' } as never,
    at: T0,
    next_attempt_at: T0,
  };
}

/** Writes `listed` (the first events of the delivery's stream, folded) as the read model's document. */
async function listAs(listed: DeliveryEvent[]): Promise<void> {
  const doc = foldDelivery(listed)!;
  expect(
    await readModels.put(webhookDeliveries.collection, { id: doc.id, seq: listed.length, versions: {}, doc }, null),
  ).toBe(true);
}

describe('the sender rescan', () => {
  it('given a delivery sent here whose read model still shows the claim without its outcome, when the rescan runs, then it is not put back on the agenda', async () => {
    const data = scheduledData(1);
    await log.schedule(data, noCause);
    const scheduled = (await log.load(data.delivery_id))!;
    const claim: DeliveryEvent = {
      type: 'WebhookAttemptStarted',
      data: { delivery_id: data.delivery_id, attempt: 1, trigger: 'schedule', at: T0, sender: 'replica-a' },
    };
    const outcome: DeliveryEvent = {
      type: 'WebhookAttemptSucceeded',
      data: {
        delivery_id: data.delivery_id,
        attempt: 1,
        trigger: 'schedule',
        url: data.url,
        at: T0,
        status: 204,
        duration_ms: 3,
        error: null,
        next_attempt_at: null,
      },
    };
    expect(await log.record(scheduled.state, [claim], scheduled.revision, noCause)).toBe(true);
    const claimed = (await log.load(data.delivery_id))!;
    expect(await log.record(claimed.state, [outcome], claimed.revision, noCause)).toBe(true);
    await listAs([{ type: 'WebhookDeliveryScheduled', data }, claim]);

    await trackUnfinished({ store: readModels, log, scheduler }, ['pending'], { fromLog: true });

    expect(scheduler.knows(data.delivery_id)).toBe(false);
    expect(scheduler.pending()).toBe(0);
  });

  it('given a pending delivery another replica scheduled, when the rescan runs, then it is put on the agenda', async () => {
    const data = scheduledData(2);
    await log.schedule(data, noCause);
    await listAs([{ type: 'WebhookDeliveryScheduled', data }]);

    await trackUnfinished({ store: readModels, log, scheduler }, ['pending'], { fromLog: true });

    expect(scheduler.knows(data.delivery_id)).toBe(true);
    expect(scheduler.pending()).toBe(1);
  });

  it('given takeover, when the caught-up read model lists a pending delivery, then it is put on the agenda as listed', async () => {
    const data = scheduledData(3);
    await listAs([{ type: 'WebhookDeliveryScheduled', data }]);

    await trackUnfinished({ store: readModels, log, scheduler }, ['pending'], { fromLog: false });

    expect(scheduler.knows(data.delivery_id)).toBe(true);
  });
});

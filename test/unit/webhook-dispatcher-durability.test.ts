import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { StorageUnavailableError, type AppendOptions, type EventStore } from '../../src/ports/event-store.js';
import { createLogger } from '../../src/shared/logger.js';
import { DeliveryLog } from '../../src/webhooks/delivery-log.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import type { WebhookEndpoints } from '../../src/webhooks/endpoints.js';
import { placedData } from './order-fixtures.js';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import { recordingAppends } from '../support/recording-store.js';
import { waitFor } from '../support/wait.js';

let dir: string;
let store: SqliteEventStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dispatcher-'));
  store = new SqliteEventStore({ file: join(dir, 'events.db') });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The store, and the durability asked for by each append to a delivery stream so far. */
function recording(events: EventStore): { events: EventStore; asked: () => Array<AppendOptions['durability']> } {
  const recorded = recordingAppends(events);
  const asked = () => recorded.appends.filter((a) => a.stream.startsWith('webhook-delivery-')).map((a) => a.durability);
  return { events: recorded.events, asked };
}

/** An order placed in the store's log, as the dispatcher's group hands it over. */
async function placedInLog(): Promise<ReturnType<typeof placedData>> {
  const placed = placedData();
  await store.append(
    `order-${placed.order_id}`,
    [
      {
        type: 'OrderPlaced',
        data: { ...placed },
        metadata: { partner_id: placed.partner_id, environment: placed.environment },
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return placed;
}

describe('webhook dispatcher: what it waits for', () => {
  it("when an order event is dispatched, then its delivery is recorded with durability 'ordered'; a webhook test from the API waits for the disk", async () => {
    const { events, asked } = recording(store);
    const placed = await placedInLog();
    const [event] = await store.readStream(`order-${placed.order_id}`);
    const endpoint = { url: 'https://partner.example/hooks', events: null };
    const tracked: string[] = [];
    const dispatcher = new WebhookDispatcher({
      events,
      endpoints: { get: async () => endpoint } as unknown as WebhookEndpoints,
      log: new DeliveryLog(events),
      scheduler: { track: (state) => tracked.push(state.id) },
      clock: { now: () => new Date('2026-10-12T10:00:00Z') },
    });
    expect(await dispatcher.handle(event!)).toBe('ack');
    expect(asked()).toEqual(['ordered']);
    expect(tracked).toHaveLength(1);
    await dispatcher.schedule(
      {
        partnerId: placed.partner_id,
        environment: placed.environment,
        url: endpoint.url,
        envelope: { id: 'evt_test', type: 'webhook.test' } as never,
        orderId: null,
        orderRevision: null,
        typeIndex: 0,
      },
      { causationId: null, correlationId: null, requestId: 'req_1' },
    );
    expect(asked()).toEqual(['ordered', 'durable']);
  });
});

describe('webhook dispatcher: a storage outage', () => {
  it('when recording a delivery fails because the store cannot write, then its retries count nothing toward parking the event', async () => {
    await placedInLog();
    // The first two delivery records meet a full disk; the third is written.
    let failures = 2;
    const events = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop !== 'append') return Reflect.get(target, prop, receiver) as unknown;
        return (stream: string, list: Parameters<EventStore['append']>[1], options: AppendOptions) =>
          stream.startsWith('webhook-delivery-') && failures-- > 0
            ? Promise.reject(new StorageUnavailableError('event store', 'full', { cause: new Error('SQLITE_FULL') }))
            : target.append(stream, list, options);
      },
    });
    const lines: LogLine[] = [];
    const tracked: string[] = [];
    const dispatcher = new WebhookDispatcher({
      events,
      endpoints: {
        get: async () => ({ url: 'https://partner.example/hooks', events: null }),
      } as unknown as WebhookEndpoints,
      log: new DeliveryLog(events),
      scheduler: { track: (state) => tracked.push(state.id) },
      clock: { now: () => new Date('2026-10-12T10:00:00Z') },
      logger: createLogger({ level: 'info', destination: jsonLineSink(lines) }),
    });
    await dispatcher.start();
    try {
      await waitFor(() => tracked.length === 1 || null, { what: 'the delivery to be recorded' });
      const retried = lines.filter((l) => l.msg === 'webhook dispatch failed; retrying');
      expect(retried.map((l) => l.retry_count)).toEqual([0, 0]);
      expect(await dispatcher.parked()).toEqual([]);
    } finally {
      await dispatcher.stop();
    }
  });
});

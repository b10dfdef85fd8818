// Embedded rebuild benchmark: fills a temporary SQLite event log with ORDERS orders of 10 events
// each (1,000,000 events by default), then times a rebuild of every projection into fresh
// embedded read models (a temporary SQLite database), the way the embedded service rebuilds them at start.
//
//   npm run build && node test/bench/rebuild.mjs [--orders 100000] [--keep path/to/events.db]
//
// --keep reuses (or creates and keeps) an event file, so repeated runs skip the fill.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SqliteEventStore } from '../../dist/src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../dist/src/adapters/sqlite/read-model-store.js';
import { PROJECTIONS } from '../../dist/projections/index.js';
import { ReadModels } from '../../dist/src/application/read-models.js';

const { values } = parseArgs({ options: { orders: { type: 'string', default: '100000' }, keep: { type: 'string' } } });
const orders = Number(values.orders);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rebuild-bench-'));
const file = values.keep ?? path.join(dir, 'events.db');
const reuse = values.keep !== undefined && fs.existsSync(file);
const events = new SqliteEventStore({ file, synchronous: 'NORMAL' });

const iso = (ms) => new Date(ms).toISOString();
const START = Date.parse('2026-01-01T00:00:00Z');
const RIDER = { name: 'Ali', phone: '+96550002222', vehicle: 'motorbike' };

/** A paid card delivery order, delivered, then refunded in two parts: 10 events. */
function orderEvents(i) {
  const id = `ord_${String(i).padStart(8, '0')}`;
  const t0 = START + i * 1000;
  const at = (minute) => iso(t0 + minute * 60_000);
  const total = 2500;
  const placed = {
    order_id: id,
    environment: i % 10 === 0 ? 'sandbox' : 'live',
    partner_id: `ptn_${i % 50}`,
    reference: `ref-${i}`,
    order_number: String(1000 + i),
    store: { id: 'kw-shawarma-reem', name: 'Shawarma Al Reem' },
    currency: 'KWD',
    fulfilment: 'delivery',
    lines: [
      { item_id: 'wrap', name: 'Chicken shawarma', quantity: 2, unit_price: 1000, options: [], line_total: 2000 },
    ],
    customer: { name: 'Sara', phone: '+96550001111' },
    delivery_address: { line1: 'Block 1, Street 2', area: 'Salmiya', location: { lat: 29.33, lng: 48.07 } },
    payment_method: 'card',
    pricing: { subtotal: 2000, delivery_fee: 500, tip: 0, discount: 0, total },
    promo_code: null,
    offer_id: null,
    placed_at: at(0),
    at: at(0),
  };
  const facts = [
    ['OrderPlaced', placed],
    ['PaymentSucceeded', { amount: total, provider_ref: `pi_${i}`, at: at(1) }],
    ['OrderAccepted', { by: 'restaurant', at: at(2) }],
    ['OrderPreparationStarted', { at: at(3) }],
    ['RiderAssigned', { rider: RIDER, at: at(4) }],
    ['OrderPacked', { at: at(5) }],
    ['OrderPickedUp', { at: at(6) }],
    ['OrderDelivered', { at: at(7) }],
    ['OrderRefunded', { amount: 500, refunded_total: 500, at: at(8) }],
    ['OrderRefunded', { amount: 2000, refunded_total: 2500, at: at(9) }],
  ];
  const metadata = {
    partner_id: placed.partner_id,
    environment: placed.environment,
    actor: 'system',
    schema_version: 1,
  };
  return {
    stream: `order-${id}`,
    events: facts.map(([type, data]) => ({ type, data, metadata: { ...metadata, occurred_at: data.at } })),
  };
}

if (!reuse) {
  const t = performance.now();
  for (let i = 0; i < orders; i++) {
    const o = orderEvents(i);
    await events.append(o.stream, o.events, { expectedRevision: 'no_stream' });
  }
  console.log(`filled ${orders * 10} events in ${((performance.now() - t) / 1000).toFixed(1)} s (${file})`);
}

const head = await events.headPosition();
// The embedded service's read-model store, with the indexes it creates at start.
const store = new SqliteReadModelStore();
for (const p of PROJECTIONS) store.ensureIndexes(p.collection, p.indexes ?? []);
const readModels = new ReadModels({ events, store });
const t = performance.now();
const cpu0 = process.cpuUsage();
await readModels.start();
for (const name of readModels.runners.keys()) {
  if (!(await readModels.runner(name).waitFor(head, 600_000))) throw new Error(`${name} did not reach the head`);
}
const seconds = (performance.now() - t) / 1000;
const cpu = process.cpuUsage(cpu0);
await readModels.stop();
const counts = await Promise.all(
  [...readModels.runners.values()].map((r) => readModels.store.count(r.projection.collection)),
);
console.log(
  `rebuilt ${[...readModels.runners.keys()].join(' + ')} from ${head} events in ${seconds.toFixed(1)} s ` +
    `(CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s) ` +
    `(${Math.round(Number(head) / seconds).toLocaleString('en')} events/s; documents: ${counts.join(', ')}; ` +
    `heap ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB)`,
);
await events.close();
// With --keep the event file lives elsewhere and stays; the temporary directory goes either way.
fs.rmSync(dir, { recursive: true, force: true });

// Event appended -> visible in the orders list projection, measured inside one service process:
// the service's own stores and services (as src/main.ts wires them, without the HTTP listener) on
// a fresh DATA_DIR with SQLITE_SYNCHRONOUS=FULL, orders placed through OrderService at a steady
// rate, and for every append to an order stream the time from its commit until the orders-list
// runner has applied it (ProjectionRunner.waitFor). Auto-accept runs too, as in the service, so
// its OrderAccepted appends are measured as well. Prints one JSON line.
//
//   node test/bench/projection-lag.mjs [--rate 500] [--seconds 10]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../dist/src/config.js';
import { createLogger } from '../../dist/src/shared/logger.js';
import { systemClock } from '../../dist/src/shared/clock.js';
import { openStores } from '../../dist/src/composition/stores.js';
import { buildService } from '../../dist/src/composition/server.js';
import { orderBody } from './orders.mjs';

const { values } = parseArgs({
  options: { rate: { type: 'string', default: '500' }, seconds: { type: 'string', default: '10' } },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-projection-'));
const config = loadConfig({ DATA_DIR: dataDir, SQLITE_SYNCHRONOUS: 'FULL', LOG_LEVEL: 'silent' });
const stores = await openStores(config);
const service = await buildService(config, stores, {
  logger: createLogger({ level: 'silent', destination: fs.createWriteStream('/dev/null') }),
  clock: systemClock,
});
const runner = service.services.readModels.runner('orders-list');

const lags = [];
let lost = 0;
// The embedded store commits appends in batches and then wakes its readers (wakeup.notify): that
// instant is the commit time of every append in the batch. (If the store's internals change,
// the time the append's promise resolves is used, a few microseconds later.)
let lastCommit = NaN;
const wakeup = stores.events.wakeup;
if (wakeup && typeof wakeup.notify === 'function') {
  const notify = wakeup.notify.bind(wakeup);
  wakeup.notify = () => {
    lastCommit = performance.now();
    notify();
  };
}
const append = stores.events.append.bind(stores.events);
stores.events.append = (streamId, events, options) => {
  const pending = append(streamId, events, options);
  if (streamId.startsWith('order-')) {
    pending.then(
      (r) => {
        const committed = Number.isFinite(lastCommit) ? lastCommit : performance.now();
        return runner.waitFor(r.position, 5000).then((ok) => {
          if (ok) lags.push(performance.now() - committed);
          else lost++;
        });
      },
      () => undefined,
    );
  }
  return pending;
};

const ctx = { actor: 'partner', partnerId: 'ptr_bench', environment: 'live', requestId: 'bench' };
const input = orderBody();
const tickMs = 10;
const perTick = rate * (tickMs / 1000);
const started = performance.now();
let placed = 0;
const inFlight = new Set();
for (let tick = 0; performance.now() - started < seconds * 1000; tick++) {
  const due = Math.round((tick + 1) * perTick) - Math.round(tick * perTick);
  for (let i = 0; i < due; i++) {
    const p = service.services.orders.place(ctx, randomUUID(), input).then(() => placed++);
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
  }
  const next = started + (tick + 1) * tickMs;
  await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
}
await Promise.all(inFlight);
const elapsed = (performance.now() - started) / 1000;
// Auto-accept keeps appending after the last order: wait until the log stops growing and the
// orders list has applied all of it, then give the last waitFor callbacks a moment to record.
for (let head = -1n, now = await stores.events.headPosition(); now !== head; now = await stores.events.headPosition()) {
  head = now;
  await runner.waitFor(head, 30_000);
  await new Promise((r) => setTimeout(r, 500));
}
await service.stop();
await stores.close();
fs.rmSync(dataDir, { recursive: true, force: true });

const sorted = [...lags].sort((a, b) => a - b);
const pct = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
console.log(
  JSON.stringify({
    orders: placed,
    rate: placed / elapsed,
    samples: sorted.length,
    lost,
    p50: pct(0.5),
    p99: pct(0.99),
    max: sorted.at(-1) ?? NaN,
  }),
);

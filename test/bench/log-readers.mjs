// The cost of following a live embedded log: one process appends order events at a steady rate
// (two appends per millisecond, at FULL) while three readers follow it, as in the service: a
// sequential consumer group (the webhook dispatcher's shape), a filtered one with a window of 32
// (auto-accept's) and a subscription (the projections'). Each reader parses every event's data.
// Compares the store with its recent events (the default) and without (recentEvents: 0), runs
// interleaved, and prints the process's CPU for each: user time is the readers' and the appends'
// JavaScript and SQLite calls; system time is mostly the log's fsyncs.
//
//   npm run build && node test/bench/log-readers.mjs [--events 6000] [--rounds 3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SqliteEventStore } from '../../dist/src/adapters/sqlite/event-store.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '6000' }, rounds: { type: 'string', default: '3' } },
});
const N = Number(values.events);
const data = {
  order_id: 'ord_0000000000000000',
  lines: [
    { item_id: 'wrap', quantity: 2 },
    { item_id: 'hummus', quantity: 1 },
  ],
  at: new Date(0).toISOString(),
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(recentEvents) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-readers-'));
  const store = new SqliteEventStore({ file: path.join(dir, 'events.db'), synchronous: 'FULL', recentEvents });
  const seen = [0, 0, 0];
  const groups = [
    store.consumerGroup({ group: 'sequential', filter: { streamPrefixes: ['order-'] } }),
    store.consumerGroup({
      group: 'windowed',
      filter: { streamPrefixes: ['order-'], eventTypes: ['OrderPlaced'] },
      concurrency: 32,
    }),
  ];
  await groups[0].start(async (e) => {
    void e.data;
    seen[0]++;
    return 'ack';
  });
  await groups[1].start(async (e) => {
    void e.data;
    seen[1]++;
    return 'ack';
  });
  const sub = store.subscribeToAll({
    onEvent: (e) => {
      void e.data;
      seen[2]++;
    },
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N / 2; i++) {
    void store.append(`order-${i}`, [{ type: 'OrderPlaced', data, metadata: {} }], { expectedRevision: 'no_stream' });
    void store.append(`order-${i}`, [{ type: 'OrderAccepted', data, metadata: {} }], { expectedRevision: 0 });
    await sleep(1);
  }
  while (seen[0] < N || seen[1] < N / 2 || seen[2] < N) await sleep(5);
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  await sub.stop();
  for (const g of groups) await g.stop();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { user: cpu.user / 1000, system: cpu.system / 1000, seconds };
}

const results = { recent: [], none: [] };
for (let r = 0; r < Number(values.rounds); r++) {
  for (const [name, recentEvents] of [
    ['recent', undefined],
    ['none', 0],
  ]) {
    const x = await run(recentEvents);
    results[name].push(x);
    console.log(
      `${name.padEnd(6)} user ${x.user.toFixed(0)} ms, system ${x.system.toFixed(0)} ms, ${N} events in ${x.seconds.toFixed(1)} s`,
    );
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
};
const user = (name) => median(results[name].map((x) => x.user));
console.log(
  `median user CPU: recent ${user('recent').toFixed(0)} ms, none ${user('none').toFixed(0)} ms, ratio ${(user('recent') / user('none')).toFixed(2)}`,
);

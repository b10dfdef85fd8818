// `npm run bench`: issue 7's benchmark. Measures a bare Express 5 handler, then the service (the
// built `node dist/src/main.js`, embedded stores, fresh DATA_DIR, LOG_LEVEL=info to /dev/null) on
// each scenario, prints one table and writes the same as JSON (bench-results.json). The baseline
// is measured first and last; ratios use the higher. What each scenario does: docs/performance.md.
//
//   npm run bench                      full run (10 s per load scenario, 100,000 orders for memory)
//   npm run bench -- --quick           smoke run (a few seconds per scenario; not comparable)
//   npm run bench -- --only ping,menu  some scenarios (ids: see SCENARIOS below)
//   npm run bench -- --cpu-prof        also profile every service process (node --cpu-prof) and summarise
//   npm run bench -- --synchronous NORMAL   diagnosis: order rows at NORMAL (shown, not judged)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ROOT, cli, startBareExpress, startService } from './service.mjs';
import { load, waitIdle } from './load.mjs';
import { printTable } from './report.mjs';
import { describeMachine } from './machine.mjs';
import { writeLargeCatalog } from './large-catalog.mjs';
import * as http from './scenarios.mjs';
import { memory, projectionLag, rebuild, webhook } from './offline-scenarios.mjs';
import { processes } from './processes.mjs';
import { PEER_ROWS, peerMemory, peerRows, startPeer } from './peer-scenarios.mjs';
import { formatSummary, summarise } from './cpuprofile-summary.mjs';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench-results.json' },
    // Diagnosis only: the scenario is FULL; with NORMAL the order rows are shown but not judged.
    synchronous: { type: 'string', default: 'FULL' },
  },
});
const quick = values.quick;
const TIMING = quick
  ? { warmupSeconds: 1, seconds: 3, memoryOrders: 5_000, lagSeconds: 2, rebuildOrders: 10_000, peerRounds: 1 }
  : { warmupSeconds: 3, seconds: 10, memoryOrders: 100_000, lagSeconds: 10, rebuildOrders: 100_000, peerRounds: 3 };

// Order matters: replay compares with create_max's rate.
const SCENARIOS = [
  'ping',
  'menu',
  'search',
  'order_get',
  'create_max',
  'create_500',
  'create_200',
  'replay',
  'webhook',
  'projection',
  'rebuild',
  'memory',
  'processes',
];
const only = values.only ? new Set(values.only.split(',')) : null;
if (only)
  for (const id of only)
    if (!SCENARIOS.includes(id)) throw new Error(`unknown scenario ${id}; known: ${SCENARIOS.join(', ')}`);
const wanted = (id) => !only || only.has(id);
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
const machine = describeMachine(tmp);
log(
  `machine: ${machine.cpus} CPUs, ${machine.memory_gb} GB, node ${machine.node}, load ${machine.load_average_at_start.join(' ')}, ` +
    `SQLite commits/s FULL ${machine.sqlite_commits_per_s.FULL}, NORMAL ${machine.sqlite_commits_per_s.NORMAL}`,
);

const bare = await startBareExpress();
const rows = [];
const profiles = [];
try {
  log('bare Express 5 baseline');
  const bareBefore = await load(bare.url, { path: '/' }, { ...TIMING, pid: bare.pid });
  log(`bare: ${Math.round(bareBefore.rps)} req/s`);

  const profileDir = path.join(tmp, 'profiles');
  // Every service process loads sync-probe.mjs (log syncs, event-loop delay), which writes to
  // BENCH_PROBE_DIR (inherited): a clock read per sync and a timer per second.
  const probeDir = path.join(tmp, 'probe');
  fs.mkdirSync(probeDir);
  process.env.BENCH_PROBE_DIR = probeDir;
  const nodeArgsFor = (name) => [
    ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : []),
    '--import',
    path.join(ROOT, 'test/bench/sync-probe.mjs'),
  ];
  const ctx = {
    nodeArgsFor,
    probeDir,
    timing: TIMING,
    bareRps: bareBefore.rps,
    raw: { bare_before: bareBefore },
    ordersPlaced: 0,
    createRps: NaN,
    synchronous: values.synchronous,
    // The peer (peer-scenarios.mjs), running beside the service for the rows in PEER_ROWS.
    peer: undefined,
    peerFigures: {},
  };
  if (!['FULL', 'NORMAL'].includes(ctx.synchronous)) throw new Error('--synchronous is FULL or NORMAL');
  const needsService = SCENARIOS.slice(0, SCENARIOS.indexOf('replay') + 1).some(wanted);
  if (needsService) {
    ctx.dataDir = path.join(tmp, 'service');
    fs.mkdirSync(ctx.dataDir);
    const catalogFile = path.join(tmp, 'catalog.json');
    ctx.largeMenu = writeLargeCatalog(catalogFile);
    await cli(ctx.dataDir, ['catalog', 'import', catalogFile, '--json']);
    const partner = JSON.parse(
      await cli(ctx.dataDir, ['partners', 'create', '--name', 'Bench', '--rate-limit', '10000000', '--json']),
    );
    ctx.key = partner.live_key;
    ctx.adminToken = randomBytes(24).toString('hex');
    const svc = await startService({
      dataDir: ctx.dataDir,
      env: { ADMIN_TOKEN: ctx.adminToken, SQLITE_SYNCHRONOUS: ctx.synchronous },
      nodeArgs: nodeArgsFor('service'),
    });
    ctx.url = svc.url;
    ctx.pid = svc.pid;
    try {
      if (PEER_ROWS.some(wanted)) {
        const dataDir = path.join(tmp, 'peer');
        fs.mkdirSync(dataDir);
        ctx.peer = await startPeer({ dataDir, nodeArgs: nodeArgsFor('peer') });
      }
      const steps = {
        ping: http.ping,
        menu: http.menu,
        search: http.search,
        order_get: http.orderGet,
        create_max: http.createMax,
        create_500: http.create500,
        create_200: http.create200,
        replay: http.replay,
      };
      for (const [id, step] of Object.entries(steps)) {
        if (!wanted(id)) continue;
        // Each scenario starts on an idle service: the previous one's background work (auto-accept,
        // webhook dispatch, projections) must not be measured as this one's.
        const settled = await http.bothIdle(ctx, id);
        ctx.raw[`settle_before_${id}`] = settled;
        log(
          `${id} (service idle after ${Number.isFinite(settled) ? `${settled.toFixed(1)} s` : 'NOT settled in 120 s'})`,
        );
        for (const r of [await step(ctx)].flat()) {
          rows.push(r);
          log(`${id}: ${r.value.toFixed(2)} ${r.unit} ${r.note}`);
        }
        const peer = ctx.peerFigures[id];
        if (peer) log(`peer ${id}: ${Math.round(peer.achieved ?? peer.rps)}/s, p99 ${peer.latency.p99} ms`);
      }
      await waitIdle(ctx.pid);
    } finally {
      try {
        await svc.stop();
      } finally {
        await ctx.peer?.stop();
      }
    }
  }

  const offline = { webhook, projection: projectionLag, rebuild, memory, processes };
  for (const [id, step] of Object.entries(offline)) {
    if (!wanted(id)) continue;
    log(id);
    for (const r of [await step({ ...ctx, tmp, quick, timing: TIMING, log })].flat()) {
      rows.push(r);
      log(`${id}: ${Number.isFinite(r.value) ? r.value.toFixed(1) : '-'} ${r.unit} ${r.note}`);
    }
  }

  // The peer's memory row: a fresh peer, as ours.
  const peer = { ...ctx.peerFigures };
  if (wanted('memory'))
    peer.memory = await peerMemory({ tmp, orders: TIMING.memoryOrders, nodeArgs: nodeArgsFor('peer-memory'), log });
  ctx.raw.peer = peer;
  rows.push(...peerRows(rows, ctx.raw, peer, ctx.synchronous));

  if (values['cpu-prof'] && fs.existsSync(profileDir)) {
    for (const name of fs.readdirSync(profileDir))
      for (const f of fs.readdirSync(path.join(profileDir, name)))
        profiles.push({ name, file: path.join(profileDir, name, f) });
  }

  log('bare Express 5 baseline again (drift check)');
  const bareAfter = await load(bare.url, { path: '/' }, { ...TIMING, pid: bare.pid });
  ctx.raw.bare_after = bareAfter;
  // The machine is shared: the baseline drifts between the two runs. Every ratio is taken against
  // the higher of the two, so a noisy, low baseline can never make a scenario pass.
  const bareRps = Math.max(bareBefore.rps, bareAfter.rps);
  for (const r of rows) {
    if (r.ratio === null) continue;
    r.ratio = r.value / bareRps;
    if (r.share !== undefined) r.pass = r.allAnswersOk && r.ratio >= r.share;
  }
  rows.unshift({
    id: 'bare',
    scenario: 'bare Express 5, GET / -> {"ok":true}',
    value: bareRps,
    unit: 'req/s',
    ratio: 1,
    target: 'baseline',
    pass: null,
    note:
      `measured first (${Math.round(bareBefore.rps).toLocaleString('en')} req/s) and last (${Math.round(bareAfter.rps).toLocaleString('en')} req/s); ratios use the higher; ` +
      `bare Express CPU ${Math.round(bareBefore.serverCpu * 100)}% and load generator CPU ${Math.round(bareBefore.clientCpu * 100)}% of one core (first run)`,
  });

  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const header =
    `Benchmark (${quick ? 'QUICK smoke run: figures not comparable' : 'full run'}), ${new Date().toISOString()}\n` +
    `${machine.cpus} CPUs (${machine.cpu_model}), ${machine.memory_gb} GB, node ${machine.node}, load at start ${machine.load_average_at_start.join(' ')}, ` +
    `SQLite single-row commits/s on this disk: FULL ${machine.sqlite_commits_per_s.FULL.toLocaleString('en')}, NORMAL ${machine.sqlite_commits_per_s.NORMAL.toLocaleString('en')}\n` +
    `command: ${command}`;
  console.log(printTable(rows, header));
  const out = path.resolve(ROOT, values.out);
  fs.writeFileSync(
    out,
    JSON.stringify(
      { at: new Date().toISOString(), quick, command, machine, timing: TIMING, rows, raw: ctx.raw },
      null,
      2,
    ) + '\n',
  );
  log(`wrote ${path.relative(process.cwd(), out) || out}`);
  for (const { name, file } of profiles) {
    const kept = path.join(ROOT, `bench-${name}-${path.basename(file)}`);
    fs.copyFileSync(file, kept);
    console.log(
      `\nCPU profile of the ${name} instance, ${path.relative(ROOT, kept)}:\n${formatSummary(summarise(kept, 20))}`,
    );
  }
} finally {
  await bare.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}

// Several service processes behind one port, for the bench's two-process row: Node's cluster
// module, whose primary accepts the connections and hands them to the workers in turn. Each worker
// is `dist/src/main.js` with `npm start`'s flags, as the single-process rows run it, on the same
// DATA_DIR (docs/operations.md, "One host, several processes on one DATA_DIR").
//
//   node test/bench/cluster.mjs <processes> [node flags...]
//
// Prints the pids (the primary's, which accepts every connection and hands it on, then the
// workers') as a JSON array on stdout once every worker listens; SIGTERM stops the workers (each
// drains as on its own) and then the primary.
import cluster from 'node:cluster';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './service.mjs';

const count = Number(process.argv[2]);
if (!Number.isInteger(count) || count < 1) throw new Error('usage: cluster.mjs <processes> [node flags...]');
// Round robin (Linux's default, set so that it holds): connections spread evenly over the workers.
cluster.schedulingPolicy = cluster.SCHED_RR;
// The workers' log lines go to /dev/null, as a single process's do (service.mjs); this process's
// stdout carries only the pids.
const sink = fs.openSync('/dev/null', 'w');
cluster.setupPrimary({
  exec: path.join(ROOT, 'dist/src/main.js'),
  execArgv: process.argv.slice(3),
  stdio: ['ignore', sink, 'inherit', 'ipc'],
});
const workers = Array.from({ length: count }, () => cluster.fork());
let listening = 0;
for (const w of workers)
  w.once('listening', () => {
    if (++listening === count)
      process.stdout.write(`${JSON.stringify([process.pid, ...workers.map((x) => x.process.pid)])}\n`);
  });
let stopping = false;
cluster.on('exit', (worker, code) => {
  if (!stopping) {
    process.stderr.write(`worker ${worker.process.pid} exited (${code})\n`);
    process.exit(1);
  }
  if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
});
process.on('SIGTERM', () => {
  stopping = true;
  for (const w of workers) w.process.kill('SIGTERM');
});

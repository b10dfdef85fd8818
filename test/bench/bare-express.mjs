// The baseline: a bare Express 5 handler returning a small JSON object, nothing else.
// Started as a child process by bench/run.mjs; prints its port on stdout once listening.
// With BENCH_BLOB_FILE it also serves that file's bytes as JSON on /blob: the ceiling of this
// stack for a response of that size (used next to the large-menu scenario, not as its baseline).
import fs from 'node:fs';
import http from 'node:http';
import express from 'express';

const app = express();
app.get('/', (req, res) => res.json({ ok: true }));
if (process.env.BENCH_BLOB_FILE) {
  const blob = fs.readFileSync(process.env.BENCH_BLOB_FILE);
  app.get('/blob', (req, res) => res.type('application/json').send(blob));
}
const server = http.createServer(app);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

// The baseline: a bare Express 5 handler returning a small JSON object, nothing else.
// Started as a child process by bench/run.mjs; prints its port on stdout once listening.
// With BENCH_BLOB_FILE it also serves that file's bytes as JSON on /blob: the ceiling of this
// stack for a response of that size (used next to the large-menu scenario, not as its baseline),
// and on /blob-ascii the same bytes with every non-ASCII byte replaced by `a` (the same length and
// JSON shape): autocannon decodes every answer as UTF-8 text, which costs far more for non-ASCII.
import fs from 'node:fs';
import http from 'node:http';
import express from 'express';

const app = express();
app.get('/', (req, res) => res.json({ ok: true }));
if (process.env.BENCH_BLOB_FILE) {
  const blob = fs.readFileSync(process.env.BENCH_BLOB_FILE);
  const ascii = Buffer.from(blob.map((b) => (b >= 0x80 ? 0x61 : b)));
  app.get('/blob', (req, res) => res.type('application/json').send(blob));
  app.get('/blob-ascii', (req, res) => res.type('application/json').send(ascii));
}
const server = http.createServer(app);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

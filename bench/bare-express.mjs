// The baseline: a bare Express 5 handler returning a small JSON object, nothing else.
// Started as a child process by bench/run.mjs; prints its port on stdout once listening.
import http from 'node:http';
import express from 'express';

const app = express();
app.get('/', (req, res) => res.json({ ok: true }));
const server = http.createServer(app);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

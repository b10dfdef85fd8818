import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  ReceiverConnections,
  sendWebhook,
} from '../../src/webhooks/sender.js';

type Seen = {
  path: string;
  host: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
  servername?: string;
};

const seen: Seen[] = [];
const huge = { written: 0, closed: false };

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const servername = (req.socket as Partial<TLSSocket>).servername;
    seen.push({
      path: req.url ?? '',
      host: req.headers.host,
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
      ...(servername ? { servername: String(servername) } : {}),
    });
    const route = (req.url ?? '').split('?')[0];
    if (route === '/ok') res.writeHead(200).end('thanks');
    else if (route === '/accepted') res.writeHead(202).end();
    else if (route === '/fail') res.writeHead(500).end('boom');
    else if (route === '/redirect') res.writeHead(302, { location: '/ok' }).end();
    else if (route === '/slow') setTimeout(() => res.writeHead(200).end('late'), 1000);
    else if (route === '/stall-body')
      res.writeHead(200).write('partial'); // and never ends
    else if (route === '/reset') req.socket.resetAndDestroy();
    else if (route === '/huge') streamForever(res);
    else res.writeHead(404).end();
  });
}

function streamForever(res: ServerResponse): void {
  const chunk = Buffer.alloc(16 * 1024, 'x');
  res.on('close', () => (huge.closed = true));
  res.writeHead(200);
  const pump = () => {
    while (!res.destroyed) {
      huge.written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
  };
  pump();
}

const servers: Server[] = [];
async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

let port = 0;
const send = (route: string, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}) =>
  sendWebhook({
    url: `http://hooks.invalid:${port}${route}`, // .invalid never resolves: reaching the server proves the pin
    addresses: ['127.0.0.1'],
    headers: { 'content-type': 'application/json', 'service-event-id': 'evt_1' },
    body: '{"id":"evt_1"}',
    ...extra,
  });

beforeAll(async () => {
  port = await listen(createServer(handle));
});
afterAll(async () => {
  for (const s of servers) {
    (s as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function until(condition: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('sendWebhook', () => {
  it('when the receiver answers 200, then ok with status, excerpt and the exact headers and body sent', async () => {
    const result = await send('/ok');
    expect(result).toMatchObject({ ok: true, status: 200, error: null, response_excerpt: 'thanks' });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    const got = seen.at(-1)!;
    expect(got).toMatchObject({ path: '/ok', host: `hooks.invalid:${port}`, body: '{"id":"evt_1"}' });
    expect(got.headers['service-event-id']).toBe('evt_1');
  });

  it('when the receiver answers any 2xx, then ok', async () => {
    expect(await send('/accepted')).toMatchObject({ ok: true, status: 202, error: null, response_excerpt: null });
  });

  it('when the receiver answers 500, then a failed attempt with the status and body excerpt', async () => {
    expect(await send('/fail')).toMatchObject({
      ok: false,
      status: 500,
      error: 'receiver answered HTTP 500',
      response_excerpt: 'boom',
    });
  });

  it('when the receiver redirects, then it is not followed and the attempt fails', async () => {
    const before = seen.filter((s) => s.path === '/ok').length;
    const result = await send('/redirect');
    expect(result).toMatchObject({ ok: false, status: 302 });
    // Not the target: the delivery log must not repeat what a remote host says.
    expect(result.error).toBe('redirect not followed: webhooks must answer 2xx themselves');
    expect(seen.filter((s) => s.path === '/ok').length).toBe(before);
  });

  it('when the reply is slower than the timeout, then the attempt fails as timed out', async () => {
    const result = await send('/slow', { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, error: 'timed out: no complete response within 300 ms' });
    expect(result.duration_ms).toBeGreaterThanOrEqual(290);
    expect(result.duration_ms).toBeLessThan(1000);
  });

  it('when the body stalls after the headers, then the timeout still ends the attempt', async () => {
    const result = await send('/stall-body', { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, status: 200, error: 'timed out: no complete response within 300 ms' });
  });

  it('when the whole process is paused past the timeout while the answer arrives, then the answer counts, not the timeout', async () => {
    // The receiver runs on a thread of its own, so it answers while this one is paused (a frozen
    // container, a stalled event loop); it answers only once the pause has begun.
    const flags = new Int32Array(new SharedArrayBuffer(12));
    const [RECEIVED, PAUSED, ANSWERED] = [0, 1, 2];
    const worker = new Worker(
      `const { workerData: flags, parentPort } = require('node:worker_threads');
       const server = require('node:http').createServer((req, res) => {
         req.resume();
         req.on('end', () => {
           Atomics.store(flags, ${RECEIVED}, 1);
           Atomics.wait(flags, ${PAUSED}, 0, 10000);
           res.on('finish', () => (Atomics.store(flags, ${ANSWERED}, 1), Atomics.notify(flags, ${ANSWERED})));
           res.writeHead(200).end('thanks');
         });
       });
       server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
      { eval: true, workerData: flags },
    );
    try {
      const receiverPort = await new Promise<number>((resolve) => worker.once('message', resolve));
      // Long enough that a busy machine reaches the pause before the deadline.
      const timeoutMs = 2_000;
      const started = Date.now();
      const sending = sendWebhook({
        url: `http://hooks.invalid:${receiverPort}/ok`,
        addresses: ['127.0.0.1'],
        headers: { 'content-type': 'application/json' },
        body: '{"id":"evt_1"}',
        timeoutMs,
      });
      await until(() => Atomics.load(flags, RECEIVED) === 1, 10_000);
      // Paused after the loop has read its sockets (as a busy process mostly is): timers come next.
      await new Promise((resolve) => setImmediate(resolve));
      Atomics.store(flags, PAUSED, 1);
      Atomics.notify(flags, PAUSED);
      expect(Atomics.wait(flags, ANSWERED, 0, 10_000)).not.toBe('timed-out');
      const sleep = new Int32Array(new SharedArrayBuffer(4));
      while (Date.now() - started < timeoutMs + 200) Atomics.wait(sleep, 0, 0, 20);
      expect(await sending).toMatchObject({ ok: true, status: 200, error: null, response_excerpt: 'thanks' });
    } finally {
      await worker.terminate();
    }
  });

  it('when no timeout is given, then the spec default of 8 s applies (a 1 s reply succeeds)', async () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(8000);
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(65_536);
    expect(await send('/slow')).toMatchObject({ ok: true, status: 200, response_excerpt: 'late' });
  });

  it('when the receiver resets the connection, then a failed attempt says so', async () => {
    expect(await send('/reset')).toMatchObject({ ok: false, status: null, error: 'connection reset by the receiver' });
  });

  it('when nothing listens on the port, then a failed attempt says connection refused', async () => {
    const closed = createServer();
    const free = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const result = await sendWebhook({
      url: `http://127.0.0.1:${free}/`,
      addresses: ['127.0.0.1'],
      headers: {},
      body: '{}',
    });
    expect(result).toMatchObject({ ok: false, status: null, error: 'connection refused' });
  });

  it('when the receiver streams an endless body, then at most the cap is read and the connection is dropped', async () => {
    const result = await send('/huge', { timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(result.response_excerpt).toHaveLength(1024);
    await until(() => huge.closed);
    // Socket buffers hold some more than the 64 KiB read, but nowhere near an unbounded stream.
    expect(huge.written).toBeLessThan(16 * 1024 * 1024);
  });

  it('when there is no checked address for a host name, then nothing is sent', async () => {
    const count = seen.length;
    const result = await send('/ok', { addresses: [] });
    expect(result).toMatchObject({ ok: false, status: null, error: 'no checked address to connect to' });
    expect(seen.length).toBe(count);
  });

  it('when a header value carries a line break, then the attempt fails instead of injecting a header', async () => {
    const result = await send('/ok', { headers: { 'x-test': 'a\r\nx-injected: 1' } });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/request failed/);
  });
});

function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!opensslAvailable())('sendWebhook over https (pinned address, SNI = host name)', () => {
  let cert = '';
  let tlsPort = 0;
  let dir = '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'webhook-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=hooks.example.test',
        '-addext',
        'subjectAltName=DNS:hooks.example.test',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    tlsPort = await listen(createHttpsServer({ key: readFileSync(path.join(dir, 'key.pem')), cert }, handle));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const tls = (extra: Partial<Parameters<typeof sendWebhook>[0]> = {}) =>
    sendWebhook({
      url: `https://hooks.example.test:${tlsPort}/ok`,
      addresses: ['127.0.0.1'],
      headers: {},
      body: '{}',
      ...extra,
    });

  it('when the certificate is for the host name, then the pinned IP is used and SNI and Host carry the name', async () => {
    expect(await tls({ ca: cert })).toMatchObject({ ok: true, status: 200 });
    expect(seen.at(-1)).toMatchObject({ servername: 'hooks.example.test', host: `hooks.example.test:${tlsPort}` });
  });

  it('when the certificate is not trusted, then the attempt fails with a fixed TLS reason', async () => {
    const result = await tls();
    expect(result).toMatchObject({ ok: false, error: 'TLS certificate not trusted' });
  });

  it('when the certificate is for another name, then the reason does not repeat the names it carries', async () => {
    const result = await tls({ ca: cert, url: `https://other.example.test:${tlsPort}/ok` });
    expect(result).toMatchObject({ ok: false, error: 'TLS certificate not valid for host' });
  });
});

describe('kept connections', () => {
  it('when webhooks go to one receiver with kept connections, then they share a connection while the checked addresses are the same, a cut-off reply drops it, and close() ends them', async () => {
    const sockets: Array<{ closed: boolean }> = [];
    const keeping = createServer(handle);
    keeping.on('connection', (socket) => {
      const entry = { closed: false };
      sockets.push(entry);
      socket.on('close', () => (entry.closed = true));
    });
    const keptPort = await listen(keeping);
    const connections = new ReceiverConnections();
    const to = async (route: string, addresses = ['127.0.0.1']) => {
      const result = await sendWebhook(
        {
          url: `http://hooks.invalid:${keptPort}${route}`,
          addresses,
          headers: { 'content-type': 'application/json' },
          body: '{"id":"evt_kept"}',
        },
        connections,
      );
      // undici puts the connection back in its pool on the turn after the reply's end.
      await new Promise((resolve) => setImmediate(resolve));
      return result;
    };

    expect((await to('/ok')).ok).toBe(true);
    expect((await to('/accepted')).ok).toBe(true);
    expect(sockets).toHaveLength(1);

    // The host resolved to another set of addresses: not the connection made for the first set.
    expect((await to('/ok', ['127.0.0.1', '127.0.0.2'])).ok).toBe(true);
    expect(sockets).toHaveLength(2);

    // Read up to the cap over the first connection, which is then dropped: the next attempt opens
    // one that works.
    expect((await to('/huge')).status).toBe(200);
    await until(() => sockets[0]!.closed);
    expect((await to('/ok')).ok).toBe(true);

    await connections.close();
    await until(() => sockets.every((s) => s.closed));
  });

  it('when the receiver says Keep-Alive: timeout=2, then the connection is kept (a second less) and reused', async () => {
    let opened = 0;
    const hinting = createServer(handle);
    hinting.keepAliveTimeout = 2_000; // Node answers Keep-Alive: timeout=2
    hinting.on('connection', () => opened++);
    const hintPort = await listen(hinting);
    const connections = new ReceiverConnections();
    for (let i = 0; i < 2; i++) {
      const result = await sendWebhook(
        { url: `http://hooks.invalid:${hintPort}/ok`, addresses: ['127.0.0.1'], headers: {}, body: '{}' },
        connections,
      );
      expect(result.ok).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(opened).toBe(1);
    await connections.close();
  });

  it('when sent without kept connections, then each webhook opens and closes a connection of its own', async () => {
    let opened = 0;
    const fresh = createServer(handle);
    fresh.on('connection', () => opened++);
    const freshPort = await listen(fresh);
    for (let i = 0; i < 2; i++)
      expect(
        (
          await sendWebhook({
            url: `http://hooks.invalid:${freshPort}/ok`,
            addresses: ['127.0.0.1'],
            headers: {},
            body: '{}',
          })
        ).ok,
      ).toBe(true);
    expect(opened).toBe(2);
  });
});

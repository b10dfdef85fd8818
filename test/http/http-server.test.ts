import fs from 'node:fs';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import {
  createHttpServer,
  DEFAULT_HTTP_LIMITS,
  drainConnections,
  KEEP_ALIVE_MARGIN_MS,
} from '../../src/http/http-server.js';
import { createLogger } from '../../src/shared/logger.js';
import { ensureBuilt, startChildService, type ChildService, stopChildService } from '../support/child-service.js';
import { bearer, startTestService, tempDataDir, type TestPartner, type TestService } from '../support/service.js';
import { settledHead } from '../support/webhook-events.js';
import { newKey, orderBody } from '../support/orders.js';
import { waitFor } from '../support/wait.js';

// The Node HTTP server around the app: what its parser refuses is answered in the API's envelope,
// and clients that send slowly, or hold many connections, are cut off within configured limits.

const lines: LogLine[] = [];
const sink = jsonLineSink(lines);

// Short limits so that slow clients are cut off within the test's time; the defaults are checked apart.
const LIMITS = {
  headersTimeoutMs: 1_500,
  requestTimeoutMs: 2_500,
  maxConnections: 4,
  keepAliveTimeoutMs: 500,
};

let t: TestService;
let p: TestPartner;
let server: http.Server;
let port: number;

beforeAll(async () => {
  t = await startTestService();
  p = await t.partner({ rateLimitPerMin: 100_000 });
  server = createHttpServer(t.service.app.express, {
    logger: createLogger({ level: 'info', destination: sink }),
    limits: LIMITS,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error?: { code: string; message: string; request_id: string } };
  /** Milliseconds from the connection to the server closing it. */
  closedAfterMs: number;
  /** Everything the server wrote. */
  text: string;
}

/**
 * Writes `chunks` on a new connection (`everyMs` apart when given, for as long as the connection is
 * open: a trickling client) and resolves with the one answer once the server has closed it.
 */
function rawRequest(
  chunks: Array<string | Buffer>,
  options: { everyMs?: number; to?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(options.to ?? port, '127.0.0.1');
    const received: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      if (options.everyMs === undefined) {
        for (const c of chunks) socket.write(c);
        return;
      }
      let i = 0;
      const next = () => {
        if (socket.destroyed || socket.writableEnded) return;
        socket.write(chunks[Math.min(i++, chunks.length - 1)]!);
        timer = setTimeout(next, options.everyMs);
      };
      next();
    });
    socket.on('data', (d) => received.push(d));
    socket.on('error', () => undefined); // a reset after the answer is the server's right
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no answer before the connection closed: ${JSON.stringify(text)}`));
      const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({
        status: Number(statusLine!.split(' ')[1]),
        headers,
        body: JSON.parse(text.slice(split + 4).split('HTTP/1.1 ')[0] || '{}'),
        closedAfterMs: performance.now() - started,
        text,
      });
    });
  });
}

function expectEnvelope(res: RawAnswer, status: number, code: string): void {
  expect(res.status, JSON.stringify(res)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers.connection).toBe('close');
  expect(res.headers['x-request-id']).toMatch(/^req_/);
  expect(res.body.error).toMatchObject({ code, request_id: res.headers['x-request-id'] });
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(res.body)));
  // One log line for it, with the same request id.
  expect(lines.filter((l) => l.request_id === res.headers['x-request-id'])).toEqual([
    expect.objectContaining({ level: 30, msg: 'request refused', status, error_code: code }),
  ]);
}

async function expectStillServing(): Promise<void> {
  expect((await t.http.get('/v1/ping').set(bearer(p.sandbox))).status).toBe(200);
}

const auth = () => `Authorization: Bearer ${p.sandbox}\r\n`;

/** `n` order placements written back to back, for one connection (pipelined). */
const pipelinedOrders = (n: number) =>
  Array.from({ length: n }, () => {
    const body = JSON.stringify(orderBody());
    return (
      `POST /v1/orders HTTP/1.1\r\nHost: x\r\n${auth()}Idempotency-Key: ${newKey()}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    );
  }).join('');

describe("requests Node's parser refuses are answered in the error envelope", () => {
  it.each([
    [
      'a header over the limit',
      431,
      'headers_too_large',
      () => `GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ],
    [
      'a NUL in a header',
      400,
      'validation_error',
      () => `GET /v1/ping HTTP/1.1\r\nHost: x\r\n${auth()}X-A: a\0b\r\n\r\n`,
    ],
    [
      'Content-Length and Transfer-Encoding together',
      400,
      'validation_error',
      () =>
        `POST /v1/orders HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    [
      'bad chunked encoding',
      400,
      'validation_error',
      () =>
        `POST /v1/orders HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ],
    ['a request line that is not HTTP', 400, 'validation_error', () => 'HELLO THERE\r\n\r\n'],
    ['a space before a header colon', 400, 'validation_error', () => `GET /v1/ping HTTP/1.1\r\nHost : x\r\n\r\n`],
  ])(
    '%s: %i %s with the envelope, X-Request-Id, Connection: close and one log line',
    async (_label, status, code, request) => {
      expectEnvelope(await rawRequest([request()]), status, code);
      await expectStillServing();
    },
  );

  it.each([
    ['an HTTP/1.1 request without Host', () => `GET /v1/ping HTTP/1.1\r\n${auth()}\r\n`, 'no Host header'],
    [
      'two Host headers',
      () => `GET /v1/ping HTTP/1.1\r\nHost: a.example\r\n${auth()}host: b.example\r\n\r\n`,
      'more than one Host header',
    ],
    [
      'a Host that is not a host',
      () => `GET /v1/ping HTTP/1.1\r\nHost: a.example/path\r\n${auth()}\r\n`,
      'Host header is not a host name or address',
    ],
    [
      'an empty Host',
      () => `GET /v1/ping HTTP/1.1\r\nHost: \r\n${auth()}\r\n`,
      'Host header is not a host name or address',
    ],
    [
      'a transfer coding other than chunked',
      () =>
        `POST /v1/promo-codes/validate HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      'Transfer-Encoding "gzip, chunked" is not supported',
    ],
  ])(
    '%s: 400 validation_error in the envelope, with X-Request-Id and Connection: close',
    async (_label, request, says) => {
      const res = await rawRequest([request()]);
      expect(res.status, JSON.stringify(res)).toBe(400);
      expect(res.headers.connection).toBe('close');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(res.body.error).toMatchObject({ code: 'validation_error', request_id: res.headers['x-request-id'] });
      expect(res.body.error!.message).toContain(says);
      await expectStillServing();
    },
  );

  it.each([
    'orders.example.com',
    'API.Example.COM.:443',
    'api_1:3000',
    '127.0.0.1:8080',
    '[::1]:3000',
    '[fe80::1%25eth0]',
    '[v1.fe80::a+en1]',
    'localhost:',
    ' \t spaced.example \t',
  ])('a Host of %s is served', async (host) => {
    const res = await rawRequest([`GET /v1/ping HTTP/1.1\r\nHost: ${host}\r\n${auth()}Connection: close\r\n\r\n`]);
    expect(res.status, JSON.stringify(res)).toBe(200);
  });

  it('requests without a body refused at once (404, 405, 401) keep their connection', async () => {
    const res = await rawRequest([
      'GET /v1/nope HTTP/1.1\r\nHost: x\r\n\r\n' +
        'POST /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n' +
        'GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n' +
        `GET /v1/ping HTTP/1.1\r\nHost: x\r\n${auth()}Connection: close\r\n\r\n`,
    ]);
    // Each status line follows the previous body on its line (bodies end without a newline).
    expect(res.text.match(/HTTP\/1\.1 \d{3}/g)).toEqual([
      'HTTP/1.1 404',
      'HTTP/1.1 405',
      'HTTP/1.1 401',
      'HTTP/1.1 200',
    ]);
    expect(res.text.match(/^Connection: close/gim)).toHaveLength(1);
  });

  it('a request refused before its body is read (no key) gets one answer and its connection closed, not a 408 later', async () => {
    const head = 'POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    const res = await rawRequest([head, '{', ' '], { everyMs: 200 });
    expect(res.status).toBe(401);
    expect(res.headers.connection).toBe('close');
    expect(res.text.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
    expect(res.closedAfterMs).toBeLessThan(5_000);
  });

  it('an expectation other than 100-continue is ignored (RFC 9110 allows it): the request is served', async () => {
    const res = await rawRequest([
      `GET /v1/ping HTTP/1.1\r\nHost: x\r\n${auth()}Expect: 200-ok\r\nConnection: close\r\n\r\n`,
    ]);
    expect(res.status, JSON.stringify(res)).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('a request refused after others received whole: those are answered first, whole, then the refusal, and their writes stand', async () => {
    const res = await rawRequest([pipelinedOrders(6) + 'BLAH\r\n\r\n']);
    expect(res.text.match(/HTTP\/1\.1 \d{3}/g)).toEqual([...Array<string>(6).fill('HTTP/1.1 201'), 'HTTP/1.1 400']);
    const ids = [...res.text.matchAll(/"id":"(sbx_[^"]+)"/g)].map((m) => m[1]!);
    expect(new Set(ids).size).toBe(6);
    const refusal = res.text.slice(res.text.indexOf('HTTP/1.1 400'));
    const refusalId = /X-Request-Id: (\S+)/.exec(refusal)![1];
    expect(refusalId).not.toBe(res.headers['x-request-id']);
    expect(refusal).toContain('"code":"validation_error"');
    expect(refusal).toMatch(/^Connection: close/im);
    for (const id of ids) expect((await t.http.get(`/v1/orders/${id}`).set(bearer(p.sandbox))).status).toBe(200);
  });

  it('a request whose body is refused after one received whole: that one is answered, then the refusal for the other, at once', async () => {
    const broken =
      `POST /v1/orders HTTP/1.1\r\nHost: x\r\n${auth()}Idempotency-Key: ${newKey()}\r\n` +
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n';
    const res = await rawRequest([pipelinedOrders(1) + broken]);
    expect(res.text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 201', 'HTTP/1.1 400']);
    expect(res.closedAfterMs).toBeLessThan(LIMITS.requestTimeoutMs);
  });

  it('a second Authorization after a thousand other headers is seen: 401 invalid_api_key', async () => {
    const fillers = Array.from({ length: 1_030 }, (_, i) => `x${i}: 1\r\n`).join('');
    const res = await rawRequest([
      `GET /v1/ping HTTP/1.1\r\nHost: x\r\n${auth()}${fillers}Authorization: Bearer svc_test_other\r\nConnection: close\r\n\r\n`,
    ]);
    expect(res.status, res.text.slice(0, 300)).toBe(401);
    expect(res.body.error!.code).toBe('invalid_api_key');
  });

  it('a client that hangs up mid-request does not disturb the server', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.on('connect', resolve));
    socket.on('error', () => undefined);
    socket.write('GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Half: ');
    socket.resetAndDestroy();
    await expectStillServing();
  });
});

/**
 * Sends `head`, and `body` once the server answers `100 Continue` (never otherwise); resolves with
 * everything the server wrote once it has closed the connection.
 */
function continueExchange(head: string, body: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('connect', () => socket.write(head));
    socket.on('data', (d) => {
      const before = text;
      text += d.toString('utf8');
      if (!before.startsWith('HTTP/1.1 100') && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) socket.write(body);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
  });
}

describe('Expect: 100-continue', () => {
  const head = (authorization: string, length: number) =>
    `POST /v1/promo-codes/validate HTTP/1.1\r\nHost: x\r\n${authorization}Content-Type: application/json\r\n` +
    `Content-Length: ${length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;

  it('a request without a key gets its 401 at once, with no 100 Continue: its body is never sent', async () => {
    const text = await continueExchange(head('', 10), '{"code":1}');
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text).not.toContain('100 Continue');
    expect(text.toLowerCase()).toContain('connection: close');
  });

  it('a key without the scope gets its 403 at once, with no 100 Continue', async () => {
    const reader = await t.partner({ scopes: ['catalog:read'] });
    const text = await continueExchange(head(`Authorization: Bearer ${reader.sandbox}\r\n`, 10), '{"code":1}');
    expect(text).toMatch(/^HTTP\/1\.1 403 /);
    expect(text).not.toContain('100 Continue');
  });

  it('an authenticated request gets 100 Continue, then the answer to the body it sent', async () => {
    const text = await continueExchange(head(auth(), 10), '{"code":1}');
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 400 /);
    const body = JSON.parse(text.slice(text.lastIndexOf('\r\n\r\n') + 4)) as {
      error: { code: string; param?: string; message: string };
    };
    expect(body.error.code).toBe('validation_error');
    // The body sent after the 100 was read: its `code` (a number) is what is wrong with it.
    expect(body.error.param).toBe('code');
  });

  it('after 100 Continue the connection is kept alive as usual (Keep-Alive announced)', async () => {
    const keptAlive = head(auth(), 10).replace('Connection: close\r\n', '');
    const text = await continueExchange(keptAlive, '{"code":1}');
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 400 /);
    expect(text).toMatch(/\r\nKeep-Alive: timeout=\d+\r\n/);
    expect(text.toLowerCase()).not.toContain('connection: close');
  });

  it('a body declared over the limit gets its 413 at once, with no 100 Continue, and the connection closed', async () => {
    const text = await continueExchange(head(auth(), 50_000_000), '{}');
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).not.toContain('100 Continue');
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('"code":"payload_too_large"');
  });

  it('a request without a body keeps its connection: two pipelined GETs with the expectation are both answered', async () => {
    const get = `GET /v1/ping HTTP/1.1\r\nHost: x\r\n${auth()}Expect: 100-continue\r\n`;
    const res = await rawRequest([`${get}\r\n${get}Connection: close\r\n\r\n`]);
    expect(res.text.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
  });
});

describe('slow clients', () => {
  it('headers trickled a byte at a time: 408 request_timeout once headersTimeout has passed', async () => {
    const res = await rawRequest(['GET /v1/ping HTTP/1.1\r\nHost: x\r\n', 'X', '-', 'a', ':', ' ', 'b', 'c', 'd'], {
      everyMs: 100,
    });
    expectEnvelope(res, 408, 'request_timeout');
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    // Node checks at an interval (a quarter of the headers timeout here); generous for a busy machine.
    expect(res.closedAfterMs).toBeLessThan(LIMITS.headersTimeoutMs + 5_000);
  });

  it('a body trickled a byte at a time: 408 request_timeout once requestTimeout has passed, nothing stored', async () => {
    const head = `POST /v1/orders HTTP/1.1\r\nHost: x\r\n${auth()}Idempotency-Key: slow-body-0001\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const before = await settledHead(t.service);
    const res = await rawRequest([head, '{', '"', 'a', '"', ':', ' '], { everyMs: 100 });
    expectEnvelope(res, 408, 'request_timeout');
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(LIMITS.requestTimeoutMs - 50);
    expect(res.closedAfterMs).toBeLessThan(LIMITS.requestTimeoutMs + 5_000);
    expect(await t.stores.events.headPosition()).toBe(before);
    await expectStillServing();
  });

  it('a connection an idle client started a request on is closed once headersTimeout has passed', async () => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1');
    socket.on('connect', () => socket.write('G'));
    socket.on('error', () => undefined);
    socket.resume();
    await new Promise((resolve) => socket.on('close', resolve));
    expect(performance.now() - started).toBeLessThan(LIMITS.headersTimeoutMs + 5_000);
  });

  it('a connection opened and never used is closed once headersTimeout has passed, without an unasked 408 or a log line', async () => {
    const logged = lines.length;
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.on('close', resolve));
    expect(performance.now() - started).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    expect(performance.now() - started).toBeLessThan(LIMITS.headersTimeoutMs + 5_000);
    expect(received).toBe('');
    expect(lines.slice(logged).filter((l) => l.msg === 'request refused')).toEqual([]);
  });
});

describe('clients that stop reading', () => {
  /** A server of its own, with this stall timeout: the one above keeps the default. */
  async function serverWithStallTimeout(sendStallTimeoutMs: number) {
    const own = createHttpServer(t.service.app.express, {
      logger: createLogger({ level: 'info', destination: sink }),
      limits: { ...LIMITS, sendStallTimeoutMs },
    });
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    return {
      port: (own.address() as AddressInfo).port,
      connections: () =>
        new Promise<number>((resolve, reject) => own.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
      close: () => {
        own.closeAllConnections();
        return new Promise((resolve) => own.close(resolve));
      },
    };
  }
  /** Many large answers asked at once on one connection: more than the connection's buffers hold. */
  const manyLargeAnswers = (n: number) =>
    'GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(n - 1) +
    'GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

  it('a connection whose client reads nothing of its answers is closed once they have not moved for the stall timeout', async () => {
    const own = await serverWithStallTimeout(500);
    try {
      const socket = net.connect(own.port, '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.on('connect', resolve));
      socket.pause();
      socket.write(manyLargeAnswers(60));
      await expect.poll(own.connections, { timeout: 5_000 }).toBe(1);
      await waitFor(async () => (await own.connections()) === 0, { what: 'the stalled connection closed' });
      socket.destroy();
    } finally {
      await own.close();
    }
  });

  it('a client that reads its answers gets every one of them, however long they take together', async () => {
    // Longer than this read takes, short enough to cut it were progress not seen.
    const own = await serverWithStallTimeout(5_000);
    try {
      const socket = net.connect(own.port, '127.0.0.1');
      socket.on('error', () => undefined);
      let text = '';
      socket.on('data', (d) => (text += d.toString('latin1')));
      socket.write(manyLargeAnswers(30));
      await new Promise((resolve) => socket.on('close', resolve));
      expect(text.match(/HTTP\/1\.1 200/g)).toHaveLength(30);
    } finally {
      await own.close();
    }
  });
});

describe('draining for a shutdown', () => {
  /** A server of its own whose drain begins as its first request arrives. */
  async function drainingAtFirstRequest(): Promise<number> {
    const draining = createHttpServer(t.service.app.express, {
      logger: createLogger({ level: 'info', destination: sink }),
      limits: LIMITS,
    });
    await new Promise<void>((resolve) => draining.listen(0, '127.0.0.1', resolve));
    draining.once('request', () => drainConnections(draining, () => undefined));
    return (draining.address() as AddressInfo).port;
  }

  it('a connection idle when the drain begins is not cut: a request its client sends on it is answered, closing it', async () => {
    const draining = createHttpServer(t.service.app.express, {
      logger: createLogger({ level: 'info', destination: sink }),
      limits: { ...LIMITS, keepAliveTimeoutMs: 60_000, headersTimeoutMs: 120_000, requestTimeoutMs: 120_000 },
    });
    await new Promise<void>((resolve) => draining.listen(0, '127.0.0.1', resolve));
    const socket = net.connect((draining.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    const ping = `GET /v1/ping HTTP/1.1\r\nHost: x\r\n${auth()}\r\n`;
    socket.write(ping);
    await waitFor(() => /\r\n\r\n\{.*\}$/s.test(text), { what: 'the first answer' });
    let closed = false;
    drainConnections(draining, () => (closed = true));
    socket.write(ping);
    await new Promise((resolve) => socket.on('close', resolve));
    expect(text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(text.match(/^Connection: \S+/gim)).toEqual(['Connection: keep-alive', 'Connection: close']);
    await waitFor(() => closed, { what: 'the server closed' });
  });

  it('a request under way when the drain begins is answered with Connection: close, and its connection closed', async () => {
    const res = await rawRequest([pipelinedOrders(1)], { to: await drainingAtFirstRequest() });
    expect(res.status).toBe(201);
    expect(res.headers.connection).toBe('close');
  });

  it('requests pipelined on a connection when the drain begins are all answered; the last answer closes it', async () => {
    // The drain begins as the first request arrives, the others right behind it.
    const res = await rawRequest([pipelinedOrders(3)], { to: await drainingAtFirstRequest() });
    expect(res.text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 201', 'HTTP/1.1 201', 'HTTP/1.1 201']);
    expect(res.text.match(/^Connection: \S+/gim)).toEqual([
      'Connection: keep-alive',
      'Connection: keep-alive',
      'Connection: close',
    ]);
  });
});

describe('connection cap', () => {
  // Its own server with long timeouts: with the short ones above Node would cut the held idle
  // connections after about the headers timeout, and a stalled machine would then serve the extra one.
  let capped: http.Server;
  let cappedPort: number;
  const drops: unknown[] = [];
  beforeAll(async () => {
    const limits = { headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, maxConnections: LIMITS.maxConnections };
    capped = createHttpServer(t.service.app.express, {
      logger: createLogger({ level: 'info', destination: sink }),
      limits,
    });
    capped.on('drop', (data) => drops.push(data));
    await new Promise<void>((resolve) => capped.listen(0, '127.0.0.1', resolve));
    cappedPort = (capped.address() as AddressInfo).port;
  });
  afterAll(async () => {
    capped.closeAllConnections();
    await new Promise((resolve) => capped.close(resolve));
  });
  const connections = () =>
    new Promise<number>((resolve, reject) => capped.getConnections((err, n) => (err ? reject(err) : resolve(n))));

  it('connections beyond maxConnections are closed as they arrive; a freed slot serves again', async () => {
    await expect.poll(connections, { timeout: 10_000 }).toBe(0);
    const held = await Promise.all(
      Array.from(
        { length: LIMITS.maxConnections },
        () =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect(cappedPort, '127.0.0.1', () => resolve(s));
            s.on('error', () => undefined);
          }),
      ),
    );
    await expect.poll(connections, { timeout: 10_000 }).toBe(LIMITS.maxConnections);
    const extra = net.connect(cappedPort, '127.0.0.1');
    let answered = '';
    extra.on('data', (d) => (answered += d.toString()));
    extra.on('error', () => undefined);
    extra.on('connect', () => extra.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
    await new Promise((resolve) => extra.on('close', resolve));
    expect(answered).toBe('');
    expect(drops).toHaveLength(1); // Node's own report that it refused one for the cap
    held.forEach((s) => s.destroy());
    await expect.poll(connections, { timeout: 10_000 }).toBe(0);
    const res = await rawRequest(['GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], { to: cappedPort });
    expect(res.status).toBe(200);
  });
});

describe('the limits in production', () => {
  it('createHttpServer sets headersTimeout, requestTimeout and maxConnections by default', () => {
    const plain = createHttpServer(t.service.app.express, { logger: createLogger({ level: 'silent', pretty: false }) });
    expect(plain.headersTimeout).toBe(DEFAULT_HTTP_LIMITS.headersTimeoutMs);
    expect(plain.requestTimeout).toBe(DEFAULT_HTTP_LIMITS.requestTimeoutMs);
    expect(plain.maxConnections).toBe(DEFAULT_HTTP_LIMITS.maxConnections);
    expect(plain.keepAliveTimeout).toBe(DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs);
    expect(DEFAULT_HTTP_LIMITS).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 1_000,
      keepAliveTimeoutMs: 5_000,
      sendStallTimeoutMs: 30_000,
    });
    const config = loadConfig({ DATA_DIR: t.dataDir });
    expect([config.HTTP_REQUEST_TIMEOUT_MS, config.HTTP_MAX_CONNECTIONS]).toEqual([
      DEFAULT_HTTP_LIMITS.requestTimeoutMs,
      DEFAULT_HTTP_LIMITS.maxConnections,
    ]);
  });

  it("requests and answers are made with the app's prototypes, so Express has none to change (V8 keeps their shapes shared)", async () => {
    const app = t.service.app.express;
    const own = createHttpServer(app, { logger: createLogger({ level: 'silent', pretty: false }) });
    const seen: Array<{ request: boolean; response: boolean; node: boolean }> = [];
    // Before the app's own listener: what Node made, before Express's Object.setPrototypeOf.
    own.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) =>
      seen.push({
        request: Object.getPrototypeOf(req) === app.request,
        response: Object.getPrototypeOf(res) === app.response,
        node: req instanceof http.IncomingMessage && res instanceof http.ServerResponse,
      }),
    );
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(own.address() as AddressInfo).port}/v1/stores`, {
        headers: bearer(p.sandbox),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toHaveProperty('data');
      expect(seen).toEqual([{ request: true, response: true, node: true }]);
    } finally {
      own.closeAllConnections();
      await new Promise((resolve) => own.close(resolve));
    }
  });

  it('the headers timeout always outlasts the keep-alive timeout: a shorter HTTP_REQUEST_TIMEOUT_MS is refused', () => {
    const smallest = DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs + KEEP_ALIVE_MARGIN_MS;
    expect(loadConfig({ HTTP_REQUEST_TIMEOUT_MS: String(smallest) }).HTTP_REQUEST_TIMEOUT_MS).toBe(smallest);
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: String(smallest - 1) })).toThrow(ConfigError);
    // Whitespace around a number is no part of it (a .env file written on Windows ends lines with \r).
    expect(loadConfig({ HTTP_REQUEST_TIMEOUT_MS: ` ${smallest}\r` }).HTTP_REQUEST_TIMEOUT_MS).toBe(smallest);
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '1500' })).toThrow(
      /HTTP_REQUEST_TIMEOUT_MS must be at least 6000/,
    );
    const logger = createLogger({ level: 'silent', pretty: false });
    expect(() => createHttpServer(t.service.app.express, { logger, limits: { requestTimeoutMs: 5_500 } })).toThrow(
      RangeError,
    );
  });

  describe('the service process, with HTTP_REQUEST_TIMEOUT_MS=6000', () => {
    let dataDir: string;
    let child: ChildService;
    beforeAll(async () => {
      ensureBuilt();
      dataDir = tempDataDir();
      child = await startChildService(dataDir, { HTTP_REQUEST_TIMEOUT_MS: '6000', HTTP_MAX_CONNECTIONS: '50' });
    });
    afterAll(async () => {
      await stopChildService(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('cuts a trickled body off with 408 after about 6 s and logs it', async () => {
      // A public route reads the body before anything else can answer (a key route checks the key first).
      const head =
        'POST /checkout/cs_trickled/pay HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
      const res = await rawRequest([head, '{', ' '], { everyMs: 200, to: child.port });
      expect(res.status).toBe(408);
      expect(res.body.error?.code).toBe('request_timeout');
      expect(res.closedAfterMs).toBeGreaterThanOrEqual(5_950);
      expect(res.closedAfterMs).toBeLessThan(6_000 + 5_000);
      const id = res.headers['x-request-id']!;
      await expect
        .poll(
          () =>
            child
              .output()
              .split('\n')
              .find((l) => l.includes(id)),
          { timeout: 10_000 },
        )
        .toMatch(/"msg":"request refused"/);
    });
  });
});

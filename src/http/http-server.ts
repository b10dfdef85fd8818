import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Express, Response } from 'express';
import { ApiError, type ErrorCode } from '../domain/errors.js';
import type { Logger } from '../shared/logger.js';
import { newId } from '../shared/ids.js';
import { errorEnvelope } from './middleware/errors.js';
import { deferContinue } from './middleware/body.js';

export interface HttpServerLimits {
  /** Longest wait for a request's headers, from the first byte of the request. */
  headersTimeoutMs: number;
  /** Longest wait for a whole request, headers and body (not the answer, which has no limit here). */
  requestTimeoutMs: number;
  /** Connections held open at once; Node closes the ones beyond it as they arrive. */
  maxConnections: number;
  /** How long an idle kept-alive connection stays open; at least KEEP_ALIVE_MARGIN_MS under the headers timeout. */
  keepAliveTimeoutMs: number;
  /**
   * How long an answer may wait on a client that does not read it (nothing of it taken by the
   * connection) before the connection is closed: checked every this often, so cut after one to two.
   */
  sendStallTimeoutMs: number;
}

/** A body of the default BODY_LIMIT_BYTES (100 KiB) in 30 s needs a client sending about 3.4 KB/s. */
export const DEFAULT_HTTP_LIMITS: HttpServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 1_000,
  keepAliveTimeoutMs: 5_000,
  sendStallTimeoutMs: 30_000,
};

/**
 * The headers timeout exceeds the keep-alive timeout by at least this much, so an idle kept-alive
 * connection is closed by its keep-alive timeout, never answered 408 while a proxy is about to
 * reuse it (config.ts holds HTTP_REQUEST_TIMEOUT_MS to 6 s or more for the default 5 s).
 */
export const KEEP_ALIVE_MARGIN_MS = 1_000;

/** Node's low-level refusals that have a code of their own; any other is a 400 validation_error. */
const PARSER_REFUSALS: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'payload_too_large',
};

/**
 * Answers what Node's HTTP parser refuses (bad framing, a header over the limit or with a NUL, a
 * request too slow) with the API's error envelope, a new X-Request-Id (the one of the request in
 * flight when there is one) and `Connection: close`, and logs one line for it. Node's own answer
 * would be a bare status line. Nothing is written on a socket that is gone, once an answer has
 * started, or that never sent a byte (a connection opened ahead of need and left idle: a proxy
 * would read an unasked 408 as the answer to the request it sends next): the connection is only
 * closed.
 */
function answerClientError(logger: Logger) {
  const answer = (err: NodeJS.ErrnoException, socket: Duplex, requestId: string): void => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const code = PARSER_REFUSALS[err.code ?? ''] ?? 'validation_error';
    const error =
      code === 'validation_error' ? new ApiError(code, 'The request is not valid HTTP/1.1.') : new ApiError(code);
    const body = JSON.stringify(errorEnvelope(error, requestId));
    const head =
      `HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n';
    socket.end(head + body, () => socket.destroy());
    logger.info(
      { request_id: requestId, status: error.status, error_code: error.code, reason: err.code },
      'request refused',
    );
  };
  /** Connections already refused: the parser reports every later chunk again. */
  const refused = new WeakSet<Duplex>();
  return (err: NodeJS.ErrnoException, socket: AnsweringSocket): void => {
    const silent = socket.bytesRead === 0;
    if (err.code === 'ECONNRESET' || silent || !socket.writable) {
      socket.destroy();
      return;
    }
    if (refused.has(socket)) {
      // Waiting for the answers before the refusal: only a request timeout ends the wait.
      if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.destroy();
      return;
    }
    refused.add(socket);
    // Requests received whole are being answered, and a later one on the connection is refused
    // (pipelined): their answers go out first, whole, then the refusal. An answer cut off, or the
    // refusal in its place, would tell the client that a write it made did not happen.
    afterAnswers(socket, (requestId) => answer(err, socket, requestId ?? newId('req', 12)));
  };
}

/** A connection as Node's HTTP server keeps it: the answer it is writing, if any. */
type AnsweringSocket = Duplex & { _httpMessage?: Response; bytesRead?: number };

/**
 * Runs `then` once every answer queued on the connection has gone out; closes it if one is cut off.
 * An answer whose request was not received whole is to the request the parser refused: `then` answers
 * in its place, with its id.
 */
function afterAnswers(socket: AnsweringSocket, then: (requestId?: string) => void): void {
  const answer = socket._httpMessage;
  if (!answer) return then();
  if (!answer.req.complete) {
    if (answer.headersSent) socket.destroy();
    else then(answer.locals?.requestId as string | undefined);
    return;
  }
  answer.once('close', () => {
    if (!answer.writableFinished) socket.destroy();
  });
  // By now Node has handed the connection to the answer queued behind this one, if any.
  answer.once('finish', () => afterAnswers(socket, then));
}

/** The open connections of each server made here (the stall sweep's, keyed by connection). */
const openConnections = new WeakMap<http.Server, Map<net.Socket, string>>();

/** The answer to the last request received on each connection (requests may be pipelined). */
const lastAnswers = new WeakMap<object, http.ServerResponse>();

/**
 * For a shutdown: stops accepting connections (`closed` runs once every connection has ended), and
 * the answer to the last request received on each connection, from now on, closes it
 * (`Connection: close`), so a client sends its next request to another replica rather than here,
 * where the grace would cut it off. Answers ahead of it (pipelined) keep the connection, so none is
 * dropped. An idle connection is not closed at once, as `server.close()` would: a request its client
 * may be sending on it then would meet the close with no answer, its outcome unknown. It gets one
 * more answer, which closes it, or ends at its keep-alive timeout (5 s).
 */
export function drainConnections(server: http.Server, closed: () => void): void {
  net.Server.prototype.close.call(server, () => closed());
  const kept = new WeakMap<http.ServerResponse, boolean>();
  const closeAfter = (res: http.ServerResponse) => {
    if (res.headersSent || kept.has(res)) return;
    kept.set(res, res.shouldKeepAlive);
    res.shouldKeepAlive = false;
  };
  for (const socket of openConnections.get(server)?.keys() ?? []) {
    const last = lastAnswers.get(socket);
    if (last && !last.writableEnded) closeAfter(last);
  }
  const closeAfterLast = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const before = lastAnswers.get(req.socket);
    if (before && before !== res && !before.headersSent && kept.has(before)) before.shouldKeepAlive = kept.get(before)!;
    closeAfter(res);
  };
  for (const event of ['request', 'checkContinue', 'checkExpectation']) server.prependListener(event, closeAfterLast);
}

/**
 * Closes connections whose answer has not moved for between one and two `ms`: the client stopped
 * reading it (what is written waits in the connection's buffer), so its slot and memory would be
 * held without bound. A handler still working on an answer is not a stall.
 */
function closeStalledAnswers(server: http.Server, ms: number): void {
  const sockets = new Map<net.Socket, string>();
  openConnections.set(server, sockets);
  /**
   * Where the answer stands: what the app has written, and what of the write under way the kernel
   * has not taken yet (libuv's queue; a write's callback, and so writableLength, waits for all of it).
   */
  const progress = (s: net.Socket) =>
    `${s.bytesWritten} ${(s as net.Socket & { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize}`;
  server.on('connection', (s: net.Socket) => {
    sockets.set(s, '');
    s.once('close', () => sockets.delete(s));
  });
  const sweep = setInterval(() => {
    for (const [s, before] of sockets) {
      if (s.writableLength === 0) sockets.set(s, '');
      else if (progress(s) === before) s.destroy();
      else sockets.set(s, progress(s));
    }
  }, ms);
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}

/**
 * Node's request and response classes with the app's prototypes. Express's app.handle gives every
 * request and response the app's prototypes (Object.setPrototypeOf), and V8 then gives each of them
 * hidden classes of their own, one more for every property Node and Express add after that: about a
 * dozen per request (src/shared/objects.ts). Made by these classes, whose prototypes become the
 * app's, they keep shared hidden classes, and Express's call changes nothing. One pair per app, so
 * every server around it shares them.
 */
function appClasses(app: Express) {
  let classes = serverClasses.get(app);
  if (!classes) serverClasses.set(app, (classes = makeAppClasses(app)));
  return classes;
}

function makeAppClasses(app: Express) {
  class AppRequest extends http.IncomingMessage {}
  class AppResponse extends http.ServerResponse {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  // Everything on the app's prototypes is inherited: these are what Express sets from now on.
  app.request = AppRequest.prototype as typeof app.request;
  app.response = AppResponse.prototype as typeof app.response;
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse };
}

const serverClasses = new WeakMap<Express, ReturnType<typeof makeAppClasses>>();

/** The API's Node HTTP server around the Express app: its timeouts and limits live here. */
export function createHttpServer(
  app: Express,
  options: { logger: Logger; limits?: Partial<HttpServerLimits> },
): http.Server {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  if (headersTimeout < limits.keepAliveTimeoutMs + KEEP_ALIVE_MARGIN_MS) {
    throw new RangeError(
      `the headers timeout (${headersTimeout} ms) must exceed the keep-alive timeout (${limits.keepAliveTimeoutMs} ms) by ${KEEP_ALIVE_MARGIN_MS} ms`,
    );
  }
  // Each answer as the last of its connection (drainConnections), then the app.
  const serve = (req: http.IncomingMessage, res: http.ServerResponse) => {
    lastAnswers.set(req.socket, res);
    app(req, res);
  };
  const server = http.createServer(
    {
      ...appClasses(app),
      headersTimeout,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks both timeouts on this interval, 30 s by default: up to 30 s more than configured.
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeout / 4)),
      // Node would answer a bare 400 itself; the app refuses it in its envelope (framingRefusal).
      requireHostHeader: false,
    },
    serve,
  );
  // An expectation other than 100-continue: Node would answer a bare 417. RFC 9110 lets a server
  // ignore it (the 417 is a MAY), so the request is served as if it had none.
  server.on('checkExpectation', serve);
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    deferContinue(req, res);
    serve(req, res);
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  // By default Node keeps about the first thousand headers and drops the rest without a word: a
  // second Authorization after a thousand others would go unseen. The 16 KiB limit bounds them all.
  server.maxHeadersCount = 0;
  closeStalledAnswers(server, limits.sendStallTimeoutMs);
  server.on('clientError', answerClientError(options.logger));
  return server;
}

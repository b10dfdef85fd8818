import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '../../domain/errors.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Whether the request carries a body at all, as body-parser decides it (a Content-Length header,
 * even 0, or Transfer-Encoding). Without one, body-parser would only leave `req.body` undefined.
 */
export const hasBodyHeaders = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;

/** Whether bytes of a body come after the headers: a non-zero Content-Length, or chunks. */
export const carriesBody = (req: IncomingMessage): boolean =>
  Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/** Requests whose client waits for `100 Continue` before it sends the body, with their keep-alive. */
const awaitingContinue = new WeakMap<IncomingMessage, boolean>();

/**
 * For the server's `checkContinue`: Node would answer `100 Continue` before the app has seen the
 * request. The service sends it when the body is about to be read (`beforeReading`), after the
 * key, the rate limit and the scope, so a refused client never uploads its body. An answer given
 * without it closes the connection, on which the client may still send the body.
 */
export function deferContinue(req: IncomingMessage, res: ServerResponse): void {
  // Nothing to upload: answered as Node would, at once.
  if (!carriesBody(req)) return void res.writeContinue();
  awaitingContinue.set(req, res.shouldKeepAlive);
  res.shouldKeepAlive = false;
}

/** The refusal of a body over `limit` bytes (body-parser's `entity.too.large`, mapped in errors.ts). */
export const bodyTooLarge = (limit: number): ApiError =>
  new ApiError('payload_too_large', `The request body exceeds the limit of ${limit} bytes.`);

/**
 * Just before a body of at most `limit` bytes is read. One declared larger (without a
 * Content-Encoding its Content-Length is what would be read) is refused here, unread: the reader
 * would read it all before refusing, and a client waiting for `100 Continue` would never send it.
 * Otherwise the client waiting for `100 Continue` gets it.
 */
export function beforeReading(req: IncomingMessage, res: ServerResponse, limit: number): ApiError | undefined {
  const encoding = req.headers['content-encoding']?.trim().toLowerCase() ?? 'identity';
  if (encoding === 'identity' && Number(req.headers['content-length'] ?? 0) > limit) return bodyTooLarge(limit);
  const keepAlive = awaitingContinue.get(req);
  if (keepAlive !== undefined) {
    awaitingContinue.delete(req);
    res.shouldKeepAlive = keepAlive;
    res.writeContinue();
  }
  return undefined;
}

/**
 * A JSON request's body exactly as received: its bytes, one character each (latin1, so different
 * bytes are never the same text). Equal texts are the same request; nothing in it is parsed
 * (routes compare it: an idempotent retry). The text is made at the first call (only the routes
 * that compare bodies ask) and kept for the next.
 */
export function receivedBody(res: Response): string | undefined {
  const locals = res.locals;
  const bytes = locals.receivedBytes as Buffer | undefined;
  if (locals.receivedBody === undefined && bytes !== undefined) locals.receivedBody = bytes.toString('latin1');
  return locals.receivedBody as string | undefined;
}

/** body-parser's `type` of the failure when a UTF-8 body is not valid UTF-8 (errors.ts maps it). */
export const NOT_UTF8 = 'entity.not.utf8';

/**
 * JSON bodies only, up to `limit` bytes. A body of any other type is a 415, not silently ignored,
 * as is one in another charset (UTF-16 too, which body-parser would decode). A UTF-8 body must be
 * valid UTF-8: decoding would turn bad bytes into U+FFFD, text the caller never sent.
 */
export function jsonBody(limit: number) {
  const parse = express.json({
    limit,
    strict: true,
    type: 'application/json',
    verify: (_req, res, bytes, encoding) => {
      // body-parser has refused the charsets not named utf-*; none given is utf-8 (RFC 8259: JSON between systems is UTF-8).
      if (encoding !== 'utf-8')
        throw Object.assign(new Error('Request bodies must be UTF-8 JSON.'), {
          type: 'charset.unsupported',
          charset: encoding,
        });
      if (!isUtf8(bytes)) throw Object.assign(new Error('The request body is not valid UTF-8.'), { type: NOT_UTF8 });
      (res as Response).locals.receivedBytes = bytes;
    },
  });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (carriesBody(req) && METHODS_WITH_BODY.has(req.method) && !req.is('application/json')) {
      next(
        new ApiError(
          'unsupported_media_type',
          `Content-Type must be application/json, got ${req.headers['content-type'] ?? 'none'}.`,
        ),
      );
      return;
    }
    const refused = req.is('application/json') ? beforeReading(req, res, limit) : undefined;
    if (refused) return next(refused);
    parse(req, res, (err?: unknown) => {
      if (err !== undefined) return next(notAnObject(err) ?? err);
      // body-parser reads an empty body as `{}`: no bytes are no body, which a route that needs
      // one refuses as missing, not field by field.
      if ((res.locals.receivedBytes as Buffer | undefined)?.length === 0) req.body = undefined;
      next();
    });
  };
}

/**
 * body-parser (strict) refuses JSON whose top level is not an object or array as "not JSON"; a
 * body of `null`, `123` or `"text"` is JSON, just not what any endpoint takes: say so.
 */
function notAnObject(err: unknown): ApiError | undefined {
  const failure = err as { type?: string; body?: unknown };
  if (failure?.type !== 'entity.parse.failed' || typeof failure.body !== 'string') return undefined;
  try {
    JSON.parse(failure.body);
  } catch {
    return undefined;
  }
  return new ApiError('validation_error', 'The request body must be a JSON object.', { param: 'body' });
}

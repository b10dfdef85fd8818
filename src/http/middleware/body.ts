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
export const carriesBody = (req: Request): boolean =>
  Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/** Requests whose client waits for `100 Continue` before it sends the body. */
const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * For the server's `checkContinue`: Node would answer `100 Continue` before the app has seen the
 * request. The service sends it when the body is about to be read (`continueIfAwaited`), after the
 * key, the rate limit and the scope, so a refused client never uploads its body. An answer given
 * without reading it closes the connection, on which the client may still send the body.
 */
export function deferContinue(req: IncomingMessage, res: ServerResponse): void {
  awaitingContinue.add(req);
  res.setHeader('Connection', 'close');
}

/** Sends the `100 Continue` a request's client waits for, once, before its body is read. */
export function continueIfAwaited(req: IncomingMessage, res: ServerResponse): void {
  if (!awaitingContinue.delete(req)) return;
  res.removeHeader('Connection');
  res.writeContinue();
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
        throw Object.assign(new Error('Request bodies must be UTF-8 JSON.'), { type: 'charset.unsupported' });
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
    if (req.is('application/json')) continueIfAwaited(req, res);
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

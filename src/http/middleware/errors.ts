import type { NextFunction, Request, Response } from 'express';
import { ApiError, ERROR_CODES, isApiError } from '../../domain/errors.js';
import { StorageUnavailableError, WrongExpectedRevisionError } from '../../ports/event-store.js';
import type { Logger } from '../../shared/logger.js';
import { sendJson } from './json-response.js';
import { bodyTooLarge, carriesBody, NOT_UTF8 } from './body.js';

/** Seconds a client (or a balancer) should wait after 503 storage_unavailable. */
export const STORAGE_RETRY_AFTER_S = 30;

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
  /** The refused charset (`charset.unsupported`), lower-cased. */
  charset?: string;
  /** zlib's, when a compressed body failed to decompress: Z_DATA_ERROR, Z_BUF_ERROR (cut short), ERR__ERROR_… (brotli). */
  code?: string;
}

// zlib and brotli failures, as body-parser passes them on (untyped) from the decompression stream.
const DECOMPRESSION_FAILURE = /^(Z_|ERR__ERROR_)/;

/** Maps body-parser's failures onto the API's codes. */
function fromBodyParser(err: BodyParserError, req: Request): ApiError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError('validation_error', 'The request body is not valid JSON.', { param: 'body' });
    case NOT_UTF8:
      return new ApiError('validation_error', 'The request body is not valid UTF-8.', { param: 'body' });
    case 'entity.too.large':
      return bodyTooLarge(Number(err.limit));
    case 'encoding.unsupported':
      return new ApiError(
        'unsupported_media_type',
        `Content-Encoding ${req.headers['content-encoding'] ?? ''} is not supported: send the body as is, or with gzip, deflate or br.`,
      );
    case 'charset.unsupported':
      return new ApiError(
        'unsupported_media_type',
        `charset=${err.charset ?? ''} is not accepted: send the JSON in UTF-8 with charset=utf-8, or no charset.`,
      );
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ApiError('validation_error', 'The request body could not be read.', { param: 'body' });
    case undefined: {
      const encoding = req.headers['content-encoding'];
      if (encoding === undefined || !DECOMPRESSION_FAILURE.test(err.code ?? '')) return null;
      return new ApiError(
        'validation_error',
        `The request body is not valid ${encoding} data (corrupt or cut short).`,
        { param: 'body' },
      );
    }
    default:
      return null;
  }
}

/** The error envelope, `{ error: { code, message, request_id, … } }`, for every answer that fails. */
export function errorEnvelope(error: ApiError, requestId: string): { error: Record<string, unknown> } {
  const body: Record<string, unknown> = { code: error.code, message: error.message, request_id: requestId };
  if (error.param) body.param = error.param;
  if (error.details && error.details.length > 1) body.details = error.details;
  Object.assign(body, error.extra ?? {});
  return { error: body };
}

/** RFC 9110's challenge on every 401, with RFC 6750's `invalid_token` when a credential was sent and refused. */
const CHALLENGE = 'Bearer realm="partner-ordering"';
const INVALID_TOKEN_CHALLENGE = `${CHALLENGE}, error="invalid_token"`;

export function sendError(res: Response, error: ApiError): void {
  res.locals.errorCode = error.code;
  if (res.headersSent) return;
  // Refused with a body still to come (no key, no route): the rest is not waited for (Node would
  // read and drop it, then answer the request a second time if it never ends: a 408). A request
  // without a body keeps its connection.
  if (carriesBody(res.req) && !res.req.complete) res.setHeader('Connection', 'close');
  if (error.status === 401)
    res.setHeader('WWW-Authenticate', error.code === 'invalid_api_key' ? INVALID_TOKEN_CHALLENGE : CHALLENGE);
  sendJson(res.req, res, error.status, errorEnvelope(error, res.locals.requestId as string));
}

/** The last middleware: every failure leaves as the spec's envelope, never a stack trace. */
export function errorMapper(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (isApiError(err)) return sendError(res, err);
    if (err instanceof StorageUnavailableError) {
      // Retryable, like a 429: the storage-watch logs the failure once, the access log each request.
      res.setHeader('Retry-After', String(STORAGE_RETRY_AFTER_S));
      return sendError(res, new ApiError('storage_unavailable'));
    }
    // A command decided again on a fresh read each time another writer won, and lost every time
    // (many simultaneous commands on one order): nothing was written, and a retry decides anew.
    if (err instanceof WrongExpectedRevisionError) return sendError(res, new ApiError('concurrent_modification'));
    const mapped = fromBodyParser(err as BodyParserError, req);
    if (mapped) return sendError(res, mapped);
    logger.error({ err, request_id: res.locals.requestId }, 'unhandled error');
    sendError(res, new ApiError('internal_error', ERROR_CODES.internal_error.message));
  };
}

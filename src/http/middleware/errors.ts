import type { NextFunction, Request, Response } from 'express';
import { ApiError, ERROR_CODES, isApiError } from '../../domain/errors.js';
import type { Logger } from '../../shared/logger.js';
import { sendJson } from './json-response.js';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

/** Maps body-parser's failures onto the API's codes. */
function fromBodyParser(err: BodyParserError): ApiError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError('validation_error', 'The request body is not valid JSON.', { param: 'body' });
    case 'entity.too.large':
      return new ApiError('payload_too_large', `The request body exceeds the limit of ${err.limit} bytes.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'Request bodies must be UTF-8 JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ApiError('validation_error', 'The request body could not be read.', { param: 'body' });
    default:
      return null;
  }
}

export function sendError(res: Response, error: ApiError): void {
  res.locals.errorCode = error.code;
  const body: Record<string, unknown> = {
    code: error.code,
    message: error.message,
    request_id: res.locals.requestId as string,
  };
  if (error.param) body.param = error.param;
  if (error.details && error.details.length > 1) body.details = error.details;
  Object.assign(body, error.extra ?? {});
  if (!res.headersSent) sendJson(res.req, res, error.status, { error: body });
}

/** The last middleware: every failure leaves as the spec's envelope, never a stack trace. */
export function errorMapper(logger: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    if (isApiError(err)) return sendError(res, err);
    const mapped = fromBodyParser(err as BodyParserError);
    if (mapped) return sendError(res, mapped);
    logger.error({ err, request_id: res.locals.requestId }, 'unhandled error');
    sendError(res, new ApiError('internal_error', ERROR_CODES.internal_error.message));
  };
}

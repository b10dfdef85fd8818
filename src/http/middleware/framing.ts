import type { Request } from 'express';
import { ApiError } from '../../domain/errors.js';

/**
 * What Node's parser lets through but this server refuses, answered like the parser's own refusals
 * (api.md, Requests refused before routing): an HTTP/1.1 request without `Host` (RFC 9112 §3.2),
 * and a transfer coding other than `chunked`, which Node does not decode, so the body would be read
 * as if it had none (RFC 9112 §6.1).
 */
export function framingRefusal(req: Request): ApiError | undefined {
  if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1)
    return new ApiError('validation_error', 'The request is not valid HTTP/1.1: it has no Host header.');
  const coding = req.headers['transfer-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked')
    return new ApiError(
      'validation_error',
      `Transfer-Encoding "${coding}" is not supported: send the body with Content-Length, or chunked alone.`,
    );
  return undefined;
}

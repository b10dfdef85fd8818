import type { Request } from 'express';
import { ApiError } from '../../domain/errors.js';

/**
 * The characters of `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986): an IP literal in brackets
 * (IPv6, a zone id, IPvFuture), or an IPv4 address or registered name (unreserved, percent-encoded
 * and sub-delims characters); never empty, since an http URI has a host (RFC 9110 §4.2.1). Whether
 * an address is in range or a name resolves is not checked.
 */
const HOST = /^(?:\[[0-9A-Za-z:.%~_!$&'()*+,;=-]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::[0-9]*)?$/;

/**
 * What Node's parser lets through but this server refuses, answered like the parser's own refusals
 * (api.md, Requests refused before routing): an HTTP/1.1 request without `Host`, and any request
 * with more than one `Host` or one that is not a host (RFC 9112 §3.2: Node keeps the first of
 * several and takes any value), and a transfer coding other than `chunked`, which Node does not
 * decode, so the body would be read as if it had none (RFC 9112 §6.1).
 */
export function framingRefusal(req: Request): ApiError | undefined {
  const host = req.headers.host;
  if (host === undefined) {
    if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1)
      return new ApiError('validation_error', 'The request is not valid HTTP/1.1: it has no Host header.');
  } else if (!HOST.test(host)) {
    return new ApiError(
      'validation_error',
      'The request is not valid HTTP/1.1: its Host header is not a host name or address with an optional port.',
    );
  } else if (hostLines(req.rawHeaders) > 1) {
    return new ApiError('validation_error', 'The request is not valid HTTP/1.1: it has more than one Host header.');
  }
  const coding = req.headers['transfer-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked')
    return new ApiError(
      'validation_error',
      `Transfer-Encoding "${coding}" is not supported: send the body with Content-Length, or chunked alone.`,
    );
  return undefined;
}

function hostLines(raw: readonly string[]): number {
  let lines = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') lines++;
  return lines;
}

import type { Request, Response } from 'express';
import { newId } from '../../shared/ids.js';

// A caller's own id is kept only when it is short and harmless (it is echoed in a header and logged).
const SAFE_ID = /^[A-Za-z0-9._:-]{8,64}$/;

/**
 * Gives the request the service's own id, always generated: it is the request and correlation id of
 * every event the request causes, so a caller cannot make its requests pass for another's. A safe
 * `X-Request-Id` from the caller is kept beside it as the client request id (`res.locals`, the
 * `X-Client-Request-Id` header, the access log and event metadata); an unsafe one is dropped.
 */
export function assignRequestId(req: Request, res: Response): string {
  const id = newId('req', 12);
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && SAFE_ID.test(incoming)) {
    res.locals.clientRequestId = incoming;
    res.setHeader('X-Client-Request-Id', incoming);
  }
  return id;
}

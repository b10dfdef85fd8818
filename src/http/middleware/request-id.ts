import type { Request, Response } from 'express';
import { newId } from '../../shared/ids.js';

// A caller-chosen id is kept only when it is short and harmless (it is echoed in headers and logs).
const SAFE_ID = /^[A-Za-z0-9._:-]{8,64}$/;

/** Gives the request its id (the caller's when safe, else a new one): in `res.locals` and the X-Request-Id header. */
export function assignRequestId(req: Request, res: Response): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : newId('req', 12);
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  return id;
}

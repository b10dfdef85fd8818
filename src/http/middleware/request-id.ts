import type { NextFunction, Request, Response } from 'express';
import { newId } from '../../shared/ids.js';
import { requestContext } from '../../shared/request-context.js';

// A caller-chosen id is kept only when it is short and harmless (it is echoed in headers and logs).
const SAFE_ID = /^[A-Za-z0-9._:-]{8,64}$/;

export function requestId() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.get('x-request-id');
    const id = incoming && SAFE_ID.test(incoming) ? incoming : newId('req', 12);
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    requestContext.run({ requestId: id }, next);
  };
}

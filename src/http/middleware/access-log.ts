import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../shared/logger.js';
import type { Principal } from '../../application/key-resolver.js';

/**
 * A path that matched no route (405, or a body refused before routing) with every segment that is
 * not a plain word shown as `:id`: ids, or a key pasted into a URL by mistake, never reach the log.
 */
const pathShape = (path: string): string => path.split('/').map((s) => (s === '' || /^[a-z][a-z0-9-]*$/.test(s) ? s : ':id')).join('/');

/** One log line per request. Never logs headers, bodies or keys. */
export function accessLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const principal = res.locals.principal as Principal | undefined;
      const line = {
        request_id: res.locals.requestId as string,
        method: req.method,
        route: req.route?.path ?? (res.statusCode === 404 ? '(unmatched)' : pathShape(req.path)),
        status: res.statusCode,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        partner_id: principal?.partner.id,
        environment: principal?.key.environment,
        error_code: res.locals.errorCode as string | undefined,
      };
      if (res.statusCode >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request');
    });
    next();
  };
}

import type { Request, Response } from 'express';
import type { Logger } from '../../shared/logger.js';
import type { Principal } from '../../application/key-resolver.js';

/**
 * A path that matched no route (405, or a body refused before routing) with every segment that is
 * not a plain word shown as `:id`: ids, or a key pasted into a URL by mistake, never reach the log.
 */
const pathShape = (path: string): string =>
  path
    .split('/')
    .map((s) => (s === '' || /^[a-z][a-z0-9-]*$/.test(s) ? s : ':id'))
    .join('/');

/**
 * One log line per request, written when the response has finished. Never logs headers, bodies or
 * keys. Returns the per-request step; the 'finish' listener is one shared function (no closure per
 * request), reading what it needs from the response.
 */
export function accessLog(logger: Logger): (req: Request, res: Response) => void {
  // The line's fields are fixed and none can hold a secret (the request id is generated, the
  // caller's own id is there only when it passes SAFE_ID, the route is a pattern or a masked shape).
  // The logger's redaction paths censor named keys and fields of nested objects, so they can never
  // match here, but pino still runs its '*.'-wildcard censor on every field: a child without
  // redaction skips that work.
  const log = logger.child({}, { redact: [] });
  function onFinish(this: Response): void {
    const req = this.req;
    const locals = this.locals;
    if (locals.unlogged === true) return; // sampled out (failed authentication): see AuthThrottle
    const principal = locals.principal as Principal | undefined;
    const status = this.statusCode;
    const line = {
      request_id: locals.requestId as string,
      client_request_id: locals.clientRequestId as string | undefined,
      method: req.method,
      route:
        (req.route as { path: string } | undefined)?.path ?? (status === 404 ? '(unmatched)' : pathShape(req.path)),
      status,
      duration_ms: performance.now() - (locals.startedAt as number),
      partner_id: principal?.partner.id,
      environment: principal?.key.environment,
      error_code: locals.errorCode as string | undefined,
      // The operators' console: the session's log id (never its cookie).
      console_session: locals.consoleSession as string | undefined,
    };
    if (status >= 500) log.error(line, 'request failed');
    else log.info(line, 'request');
  }
  return (_req, res) => {
    res.locals.startedAt = performance.now();
    res.on('finish', onFinish);
  };
}

import type { Request, Response } from 'express';
import type { ServiceMetrics } from '../../shared/metrics.js';

/** The route label of a request no route matched (404, 405, a body refused before routing). */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * Reports each answered request (method, route pattern, status, seconds) when its response has
 * finished, so the status is the final one, error mapper included. The label is the route's
 * pattern (`/v1/orders/:order_id`) or UNMATCHED_ROUTE, never the path as sent: the number of
 * series stays bounded whatever clients send. Like the access log, one shared 'finish' listener.
 */
export function requestMetrics(metrics: Pick<ServiceMetrics, 'httpRequest'>): (req: Request, res: Response) => void {
  function onFinish(this: Response): void {
    const req = this.req;
    const route = (req.route as { path: string } | undefined)?.path ?? UNMATCHED_ROUTE;
    metrics.httpRequest(
      req.method,
      route,
      this.statusCode,
      (performance.now() - (this.locals.metricsStartedAt as number)) / 1000,
    );
  }
  return (_req, res) => {
    res.locals.metricsStartedAt = performance.now();
    res.on('finish', onFinish);
  };
}

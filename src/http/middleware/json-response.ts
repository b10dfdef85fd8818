import type { Request, Response } from 'express';

/**
 * `res.status(status).json(payload)` with the same bytes and headers, without the header parsing
 * Express's res.json/res.send repeat on every call (content type and charset parsed and formatted
 * again, status validated, freshness checked). Express still answers when its extra rules could
 * apply: conditional requests (it may answer 304), 204/304 statuses, or a content type already set.
 */
export function sendJson(req: Request, res: Response, status: number, payload: unknown): void {
  const headers = req.headers;
  if (
    status === 204 ||
    status === 304 ||
    headers['if-none-match'] !== undefined ||
    headers['if-modified-since'] !== undefined ||
    res.hasHeader('content-type')
  ) {
    res.status(status).json(payload);
    return;
  }
  const body = JSON.stringify(payload);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createApp } from '../../src/http/app.js';
import { defineRoute } from '../../src/http/route.js';
import { KeyResolver } from '../../src/application/key-resolver.js';
import { KeyRateLimiter } from '../../src/application/rate-limits.js';
import { createLogger } from '../../src/shared/logger.js';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { http } from '../support/http.js';
import type { PartnerStore } from '../../src/ports/partner-store.js';
import { WrongExpectedRevisionError } from '../../src/ports/event-store.js';

/** An app with one public route, GET /boom, whose handler throws `error`; its log lines go to `lines`. */
function failingApp(error: Error, lines: string[]) {
  const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) });
  return createApp({
    logger: createLogger({ level: 'info', destination: sink }),
    keys: new KeyResolver({} as PartnerStore),
    limits: new KeyRateLimiter((points) => new RateLimiterMemory({ points, duration: 60 })),
    bodyLimitBytes: 1024,
    routes: [
      defineRoute({
        method: 'get',
        path: '/boom',
        operationId: 'boom',
        summary: 'fails',
        tags: ['Test'],
        auth: 'public',
        responses: { 200: { description: 'never' } },
        errors: [409],
        handler: () => {
          throw error;
        },
      }),
    ],
  });
}

describe('unexpected faults', () => {
  it('when a handler throws, then 500 internal_error without a stack, logged with the request id', async () => {
    const lines: string[] = [];
    const app = failingApp(new Error('secret internals at db.ts:42'), lines);
    const res = await http(app).get('/boom');
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toContain('secret internals');
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    expect(logged.request_id).toBe(res.headers['x-request-id']);
  });

  it('when a command lost to other writers on every try, then 409 concurrent_modification, not an unhandled error', async () => {
    const lines: string[] = [];
    const app = failingApp(new WrongExpectedRevisionError('order-ord_1', 4, 5), lines);
    const res = await http(app).get('/boom');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('concurrent_modification');
    expect(JSON.stringify(res.body)).not.toContain('order-ord_1');
    expect(lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'unhandled error')).toEqual([]);
  });
});

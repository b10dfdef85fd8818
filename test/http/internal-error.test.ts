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

describe('unexpected faults', () => {
  it('when a handler throws, then 500 internal_error without a stack, logged with the request id', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) });
    const app = createApp({
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
          handler: () => {
            throw new Error('secret internals at db.ts:42');
          },
        }),
      ],
    });
    const res = await http(app).get('/boom');
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toContain('secret internals');
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    expect(logged.request_id).toBe(res.headers['x-request-id']);
  });
});

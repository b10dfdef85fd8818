import { RateLimiterMemory } from 'rate-limiter-flexible';
import { KeyResolver } from '../../src/application/key-resolver.js';
import { KeyRateLimiter } from '../../src/application/rate-limits.js';
import { createApp } from '../../src/http/app.js';
import { defineRoute } from '../../src/http/route.js';
import type { PartnerStore } from '../../src/ports/partner-store.js';
import { createLogger } from '../../src/shared/logger.js';
import { jsonLineSink, type LogLine } from './log-sink.js';

/**
 * The API's app with one public GET route whose handler throws `error`, logging at info into
 * `lines`: how a fault the routes do not expect leaves the service (envelope, status, log).
 */
export function failingApp(
  error: Error,
  lines: LogLine[],
  route: { path?: string; errors?: number[] } = {},
): ReturnType<typeof createApp> {
  return createApp({
    logger: createLogger({ level: 'info', destination: jsonLineSink(lines) }),
    keys: new KeyResolver({} as PartnerStore),
    limits: new KeyRateLimiter((points) => new RateLimiterMemory({ points, duration: 60 })),
    bodyLimitBytes: 1024,
    routes: [
      defineRoute({
        method: 'get',
        path: route.path ?? '/boom',
        operationId: 'boom',
        summary: 'fails',
        tags: ['Test'],
        auth: 'public',
        responses: { 200: { description: 'never' } },
        ...(route.errors ? { errors: route.errors } : {}),
        handler: () => {
          throw error;
        },
      }),
    ],
  });
}

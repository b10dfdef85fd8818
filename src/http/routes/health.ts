import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import { ApiError } from '../../domain/errors.js';
import { StorageUnavailableError } from '../../ports/event-store.js';
import { STORAGE_RETRY_AFTER_S } from '../middleware/errors.js';

export type ReadinessCheck = () => Promise<Record<string, string>>;

const Health = z.object({ status: z.enum(['ok']), checks: z.record(z.string(), z.string()).optional() }).openapi('Health');

/**
 * `storage`: rejects with StorageUnavailableError while the event store cannot write (see
 * watchStorage); /readyz then answers 503 storage_unavailable, saying why.
 */
export function healthRoutes(deps: { readiness: ReadinessCheck; storage?: () => Promise<void>; isShuttingDown: () => boolean }) {
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      summary: 'Liveness: the process is up',
      tags: ['Operations'],
      auth: 'public',
      responses: { 200: { description: 'Up.', data: Health } },
      handler: () => ({ data: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      summary: 'Readiness: every store answers',
      tags: ['Operations'],
      auth: 'public',
      responses: { 200: { description: 'Ready.', data: Health } },
      errors: [503],
      handler: async ({ res }) => {
        if (deps.isShuttingDown()) throw new ApiError('service_unavailable', 'The service is shutting down.');
        try {
          await deps.storage?.();
          return { data: { status: 'ok', checks: await deps.readiness() } };
        } catch (err) {
          if (!(err instanceof StorageUnavailableError)) throw new ApiError('service_unavailable', `A store is not reachable: ${(err as Error).message}`);
          res.setHeader('Retry-After', String(STORAGE_RETRY_AFTER_S));
          throw new ApiError('storage_unavailable', `Not ready: ${err.message}.`);
        }
      },
    }),
  ];
}

import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import { ApiError } from '../../domain/errors.js';
import { StorageUnavailableError } from '../../ports/event-store.js';
import { STORAGE_RETRY_AFTER_S } from '../middleware/errors.js';

export type ReadinessCheck = () => Promise<Record<string, string>>;

const Health = z
  .object({ status: z.enum(['ok']), checks: z.record(z.string(), z.string()).optional() })
  .openapi('Health');

/**
 * `storage`: rejects with StorageUnavailableError while the event store cannot write (see
 * watchStorage); /readyz then answers 503 storage_unavailable, saying why.
 * `readModels`: names the projections stuck on one event (ReadModels.stuckReport); /readyz stays
 * 200 and says so in `checks.read_models` (docs/operations.md, Health): the same event stops the
 * projection on every replica, and taking them all out of rotation would stop the writes too.
 */
export function healthRoutes(deps: {
  readiness: ReadinessCheck;
  storage?: () => Promise<void>;
  readModels?: () => string | undefined;
  isShuttingDown: () => boolean;
}) {
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      summary: 'Liveness: the process is up',
      tags: ['Operations'],
      auth: 'public',
      storeless: true,
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
          const checks = await deps.readiness();
          const stuck = deps.readModels?.();
          return { data: { status: 'ok', checks: { ...checks, read_models: stuck ?? 'ok' } } };
        } catch (err) {
          if (!(err instanceof StorageUnavailableError))
            throw new ApiError('service_unavailable', `A store is not reachable: ${(err as Error).message}`);
          res.setHeader('Retry-After', String(STORAGE_RETRY_AFTER_S));
          throw new ApiError('storage_unavailable', `Not ready: ${err.message}.`);
        }
      },
    }),
  ];
}

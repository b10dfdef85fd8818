import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import { ApiError } from '../../domain/errors.js';

export type ReadinessCheck = () => Promise<Record<string, string>>;

const Health = z.object({ status: z.enum(['ok']), checks: z.record(z.string(), z.string()).optional() }).openapi('Health');

export function healthRoutes(deps: { readiness: ReadinessCheck; isShuttingDown: () => boolean }) {
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
      handler: async () => {
        if (deps.isShuttingDown()) throw new ApiError('service_unavailable', 'The service is shutting down.');
        try {
          return { data: { status: 'ok', checks: await deps.readiness() } };
        } catch (err) {
          throw new ApiError('service_unavailable', `A store is not reachable: ${(err as Error).message}`);
        }
      },
    }),
  ];
}

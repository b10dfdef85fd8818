import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import { Environment, IsoTimestamp } from '../schemas/common.js';
import type { Clock } from '../../shared/clock.js';

export const PingResult = z
  .object({
    ok: z.boolean(),
    api_version: z.string().openapi({ example: 'v1' }),
    environment: Environment,
    partner: z.object({ id: z.string(), name: z.string() }),
    scopes: z.array(z.string()),
    rate_limit_per_min: z.number().int(),
    server_time: IsoTimestamp,
  })
  .openapi('PingResult');

export function pingRoutes(deps: { clock: Clock }) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/ping',
      operationId: 'ping',
      summary: 'Check the key and see what it can do',
      tags: ['Account'],
      // The spec: "No parameters. ... Also answers 401, 429, 500" (no 400).
      unknownQuery: 'ignore',
      responses: { 200: { description: 'The key, its partner and limits.', data: PingResult } },
      handler: ({ principal }) => ({
        data: {
          ok: true,
          api_version: 'v1',
          environment: principal.key.environment,
          partner: { id: principal.partner.id, name: principal.partner.name },
          scopes: principal.key.scopes,
          rate_limit_per_min: principal.key.rate_limit_per_min,
          server_time: deps.clock.now().toISOString(),
        },
      }),
    }),
  ];
}

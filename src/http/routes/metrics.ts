import { defineRoute } from '../route.js';

/** One scrape of the service's metrics in the Prometheus text format. */
export type MetricsSource = () => Promise<{ contentType: string; body: string }>;

/**
 * `GET /metrics` on the service's port, behind ADMIN_TOKEN like the rest of the operations API
 * (404 while it is unset, 401 with a wrong token). Composition leaves it out when METRICS_PORT
 * serves the metrics instead (src/http/metrics-server.ts).
 */
export function metricsRoutes(deps: { scrape: MetricsSource }) {
  return [
    defineRoute({
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      summary: "This replica's metrics for Prometheus",
      description:
        'Prometheus text exposition format 0.0.4; every metric is described in docs/operations.md. For operators (ADMIN_TOKEN), not partners.',
      tags: ['Operations'],
      auth: 'admin',
      // Scrapers may add their own parameters; /metrics on METRICS_PORT ignores them too.
      unknownQuery: 'ignore',
      responses: { 200: { description: 'The metrics, `text/plain; version=0.0.4`.', contentType: 'text/plain' } },
      handler: async () => {
        const { contentType, body } = await deps.scrape();
        // A Buffer, so Express sends the content type exactly as given.
        return { raw: { contentType, body: Buffer.from(body) } };
      },
    }),
  ];
}

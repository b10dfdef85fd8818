import http from 'node:http';
import type { MetricsSource } from './routes/metrics.js';

export interface MetricsServer {
  server: http.Server;
  /** The port it listens on (the one asked for, or the one chosen for port 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * The metrics alone on their own port (METRICS_PORT): `GET /metrics` without a token, anything
 * else 404 (405 for another method on /metrics). No token, so this port must not be reachable from
 * outside the network Prometheus scrapes from (docs/operations.md, "Metrics").
 */
export async function startMetricsServer(options: {
  scrape: MetricsSource;
  port: number;
  host: string;
}): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics')
      return void res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Not found: the metrics are at /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return void res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end('Method not allowed\n');
    options.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        res
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`Metrics could not be collected: ${(err as Error).message}\n`);
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

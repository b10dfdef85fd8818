import type http from 'node:http';
import type { Logger } from '../shared/logger.js';

export interface ShutdownSteps {
  server: http.Server;
  graceMs: number;
  logger: Logger;
  /** Makes /readyz answer 503 so a balancer stops sending new requests. */
  markShuttingDown(): void;
  /** Background work, metrics server and stores, in order, after the HTTP server has drained. */
  close(): Promise<void>;
}

/** SIGTERM/SIGINT: drain in-flight requests, stop background work, close the stores, exit. */
export function installShutdown(steps: ShutdownSteps): void {
  const { server, logger } = steps;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining in-flight requests');
    steps.markShuttingDown();
    const force = setTimeout(() => server.closeAllConnections(), steps.graceMs);
    force.unref();
    // Stop accepting; idle keep-alive sockets are closed so the drain finishes when requests do.
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await steps.close();
    logger.info('stopped cleanly');
    logger.flush?.();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

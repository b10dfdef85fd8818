import cluster from 'node:cluster';
import net from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './shared/logger.js';
import { systemClock } from './shared/clock.js';
import { openStores } from './composition/stores.js';
import { buildService } from './composition/server.js';
import { startMetricsServer } from './http/metrics-server.js';
import { createHttpServer } from './http/http-server.js';
import { installShutdown } from './composition/shutdown.js';
import { registerService } from './composition/service-registry.js';
import { Refusal } from './shared/refusal.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ level: config.LOG_LEVEL });
  // Said at once, not after the stores open and the log replays (seconds on a long log). Not in a
  // cluster worker: the primary binds for it, and the workers' 'listening' would announce the probe.
  if (cluster.isPrimary) {
    await checkCanListen('PORT', config.PORT, config.HOST);
    if (config.METRICS_PORT !== undefined) await checkCanListen('METRICS_PORT', config.METRICS_PORT, config.HOST);
  }
  const stores = await openStores(config, { logger });
  // Registered from here, not only once listening: the CLI's "no service runs on this DATA_DIR"
  // checks must see a service still replaying its log at start (the port is set again once bound).
  registerService(config.PORT, config.dataDir);
  const service = await buildService(config, stores, { logger, clock: systemClock });
  // METRICS_PORT: GET /metrics there, without a token (never publish that port).
  const metricsServer =
    config.METRICS_PORT === undefined
      ? undefined
      : await startMetricsServer({
          scrape: () => service.metrics.scrape(),
          port: config.METRICS_PORT,
          host: config.HOST,
        }).catch((err: unknown) => {
          throw listenRefusal(err, 'METRICS_PORT', config.METRICS_PORT!, config.HOST);
        });
  if (metricsServer)
    logger.info({ metrics_port: metricsServer.port }, `metrics on http://localhost:${metricsServer.port}/metrics`);
  const server = createHttpServer(service.app.express, {
    logger,
    limits: { requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS, maxConnections: config.HTTP_MAX_CONNECTIONS },
  });
  await new Promise<void>((resolve, reject) => {
    const refused = (err: unknown) => reject(listenRefusal(err, 'PORT', config.PORT, config.HOST));
    server.once('error', refused);
    server.listen(config.PORT, config.HOST, () => {
      server.off('error', refused);
      resolve();
    });
  });
  installShutdown({
    server,
    graceMs: config.SHUTDOWN_GRACE_MS,
    logger,
    markShuttingDown: () => service.markShuttingDown(),
    close: async () => {
      await service.stop();
      await metricsServer?.close();
      await stores.close();
    },
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  // So the CLI can tell which DATA_DIR the running service uses; removed when the process exits.
  registerService(port, config.dataDir);
  logger.info(
    { port, data_dir: config.dataDir, event_store: config.EVENT_STORE, read_store: config.READ_STORE },
    `listening on http://localhost:${port}`,
  );
}

/**
 * Binds `port` of `host` and lets it go: a port in use or a HOST that is not this machine's is
 * refused before anything opens. The real listen still reports a port taken in between.
 */
async function checkCanListen(name: 'PORT' | 'METRICS_PORT', port: number, host: string): Promise<void> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err) => reject(listenRefusal(err, name, port, host)));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** Why the process cannot listen on `port` of `host`, as one line naming the variable to change. */
function listenRefusal(err: unknown, name: 'PORT' | 'METRICS_PORT', port: number, host: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EADDRINUSE':
      return new Refusal(
        `${name}=${port} is in use on ${host} by another process: choose another ${name}, or stop it.`,
      );
    case 'EACCES':
      return new Refusal(
        `${name}=${port} on ${host} needs privileges this user lacks (EACCES): choose a port from 1024.`,
      );
    case 'EADDRNOTAVAIL':
      return new Refusal(
        `HOST=${host} is not an address of this machine (EADDRNOTAVAIL): use 0.0.0.0, 127.0.0.1 or an address of one of its interfaces.`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new Refusal(`HOST=${host} does not resolve (${code}): use an address or a name of this machine.`);
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}

main().catch((err) => {
  // A refusal names what is wrong and what to do in its message; a stack would bury it.
  const text = err instanceof Refusal ? err.message : ((err as Error).stack ?? String(err));
  process.stderr.write(`Failed to start: ${text}\n`);
  process.exit(1);
});

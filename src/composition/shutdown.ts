import type http from 'node:http';
import { drainConnections } from '../http/http-server.js';
import type { Logger } from '../shared/logger.js';
import { DEFAULT_TIMEOUT_MS as WEBHOOK_ATTEMPT_TIMEOUT_MS } from '../webhooks/sender.js';

/**
 * How long the steps after the drain (background work, metrics server, stores) may take: a webhook
 * attempt still in flight (no new one starts once shutting down) plus recording its outcome,
 * releasing the lease, stopping the read models and closing the stores.
 */
export const CLOSE_BOUND_MS = WEBHOOK_ATTEMPT_TIMEOUT_MS + 7_000;

export interface ShutdownSteps {
  server: http.Server;
  graceMs: number;
  /** The bound on `close` (CLOSE_BOUND_MS by default). */
  closeBoundMs?: number;
  logger: Logger;
  /** Makes /readyz answer 503 so a balancer stops sending new requests, and starts no new webhook attempts. */
  markShuttingDown(): void;
  /** Background work, metrics server and stores, in order, after the HTTP server has drained. */
  close(): Promise<void>;
}

/**
 * SIGTERM/SIGINT: drain in-flight requests (for at most the grace period), stop background work,
 * close the stores, exit 0. Whatever a step does, the process is gone by the deadline (grace plus
 * the bound on closing): a step that throws, or still runs then (a store that does not answer, a
 * scrape that never ends its request), exits 1. A second signal exits 1 at once.
 */
export function installShutdown(steps: ShutdownSteps): void {
  const { server } = steps;
  // A log destination that fails must not keep the process from exiting.
  const log = (level: 'info' | 'error', fields: Record<string, unknown>, message: string): void => {
    try {
      steps.logger[level](fields, message);
    } catch {
      // nothing left to tell it to
    }
  };
  const exit = (code: number): never => {
    try {
      steps.logger.flush?.();
    } catch {
      // as above
    }
    return process.exit(code);
  };
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      log('error', { signal }, 'second signal while shutting down: exiting at once');
      exit(1);
    }
    stopping = true;
    const deadlineMs = steps.graceMs + (steps.closeBoundMs ?? CLOSE_BOUND_MS);
    // Not unref'd: a step waiting on nothing that keeps the loop alive must still end in exit 1.
    setTimeout(() => {
      log('error', { signal, deadline_ms: deadlineMs }, 'shutdown did not finish in time: exiting');
      exit(1);
    }, deadlineMs);
    try {
      log('info', { signal }, 'draining in-flight requests');
      steps.markShuttingDown();
      const force = setTimeout(() => server.closeAllConnections(), steps.graceMs);
      force.unref();
      // Stop accepting; each connection closes once its answer is out, so the drain finishes when
      // requests do.
      await new Promise<void>((resolve) => drainConnections(server, resolve));
      await steps.close();
    } catch (err) {
      log('error', { err, signal }, 'shutdown failed: exiting');
      exit(1);
    }
    log('info', {}, 'stopped cleanly');
    exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { createLogger, type Logger } from '../../src/shared/logger.js';
import type { ReadModelStore } from '../../src/ports/read-model-store.js';
import { ManualClock } from '../../src/shared/clock.js';
import { PartnerAdmin } from '../../src/application/partners.js';
import type { Scope } from '../../src/domain/scopes.js';
import type { WebhookOptions } from '../../src/webhooks/module.js';
import { http, type Http } from './http.js';

export interface TestService {
  service: Service;
  http: Http;
  stores: Stores;
  config: Config;
  clock: ManualClock;
  dataDir: string;
  /** A partner with live + sandbox keys. */
  partner(input?: { name?: string; scopes?: Scope[]; rateLimitPerMin?: number }): Promise<TestPartner>;
  /** Stops the service and keeps DATA_DIR (restart tests). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export interface TestPartner {
  id: string;
  live: string;
  sandbox: string;
  liveKeyId: string;
  sandboxKeyId: string;
}

/** A lease that a lone test service takes at start and renews once an hour (test/unit/lease.test.ts tests leases). */
const QUIET_LEASE = { ttlMs: 6 * 60 * 60 * 1000, tickMs: 60 * 60 * 1000 };

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'pos-test-'));
}

export async function startTestService(
  options: {
    env?: Record<string, string>;
    clock?: ManualClock;
    dataDir?: string;
    webhooks?: WebhookOptions;
    auditGate?: () => Promise<void>;
    /** The service's logger (silent by default): a test reading its lines passes one writing to a sink. */
    logger?: Logger;
    /** Wraps the read-model store the service is built on (a store that fails on demand). */
    readModels?: (store: ReadModelStore) => ReadModelStore;
  } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? tempDataDir();
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SQLITE_SYNCHRONOUS: 'NORMAL', ...options.env });
  const clock = options.clock ?? new ManualClock();
  const stores = await openStores(config);
  const built = options.readModels ? { ...stores, readModels: options.readModels(stores.readModels) } : stores;
  const service = await buildService(config, built, {
    logger: options.logger ?? createLogger({ level: 'silent', pretty: false }),
    clock,
    // One process: it holds the webhook sender lease from its start. Renewals every 2 s would move
    // the log's head under tests that check a refused request appended nothing.
    webhooks: { lease: QUIET_LEASE, ...options.webhooks },
    ...(options.auditGate ? { auditGate: options.auditGate } : {}),
  });
  // The webhook sender starts in the background (Lease.start): tests get it running.
  await service.webhooks.lease.settled();
  const admin = new PartnerAdmin(stores.partners, clock, config.DEFAULT_RATE_LIMIT_PER_MIN);
  const stop = async () => {
    await service.stop();
    await stores.close();
  };
  return {
    service,
    http: http(service.app),
    stores,
    config,
    clock,
    dataDir,
    partner: async (input = {}) => {
      const { partner, live, sandbox } = await admin.createPartner({ name: input.name ?? 'Test Partner', ...input });
      return {
        id: partner.id,
        live: live.key,
        sandbox: sandbox.key,
        liveKeyId: live.record.id,
        sandboxKeyId: sandbox.record.id,
      };
    },
    stop,
    close: async () => {
      await stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

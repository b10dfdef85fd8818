/**
 * A MongoDB that cannot be reached answers the API path's reads and writes with the port's
 * StorageUnavailableError (so requests answer 503, not 500): mongo-java-server, stopped.
 */
import fs from 'node:fs';
import { MongoClient, MongoNetworkTimeoutError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { MongoPartnerStore } from '../../src/adapters/mongodb/partner-store.js';
import { MongoReadModelStore } from '../../src/adapters/mongodb/read-model-store.js';
import { mongoStorageError } from '../../src/adapters/mongodb/storage-errors.js';
import { MongoWebhookEndpointStore } from '../../src/adapters/mongodb/webhook-endpoint-store.js';
import { loadConfig } from '../../src/config.js';
import { openStores } from '../../src/composition/stores.js';
import { StorageUnavailableError } from '../../src/ports/event-store.js';
import type { WebhookEndpointRecord } from '../../src/ports/webhook-endpoint-store.js';
import {
  isCi,
  mongoJavaServerInstalled,
  startMongoJavaServer,
  uniqueDbName,
  type MongoJavaServer,
  mongoReadStoreEnv,
} from '../support/mongo-server.js';
import { tempDataDir } from '../support/service.js';

const endpoint = (version: number): WebhookEndpointRecord => ({
  partner_id: 'p-1',
  environment: 'sandbox',
  url: 'https://example.test/hook',
  events: null,
  secret_box: 'sealed',
  secret_hint: 'abcd',
  previous_secret_box: null,
  previous_secret_expires_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  version,
});

describe('mongoStorageError', () => {
  it('maps unreachable and disk-full errors, leaves others', () => {
    const selection = new MongoServerSelectionError('no server', {
      type: 'Unknown',
      servers: new Map(),
      stale: false,
      compatible: true,
      heartbeatFrequencyMS: 1,
      localThresholdMS: 1,
      setName: null,
      maxElectionId: null,
      maxSetVersion: null,
      commonWireVersion: 0,
      logicalSessionTimeoutMinutes: null,
    } as never);
    expect(mongoStorageError(selection, 's')).toMatchObject({ name: 'StorageUnavailableError', reason: 'unreachable' });
    expect(mongoStorageError(new MongoNetworkTimeoutError('timed out'), 's')).toMatchObject({ reason: 'unreachable' });
    expect(mongoStorageError(new MongoServerError({ code: 14031, errmsg: 'OutOfDiskSpace' }), 's')).toMatchObject({
      reason: 'full',
    });
    const duplicate = new MongoServerError({ code: 11000, errmsg: 'E11000' });
    expect(mongoStorageError(duplicate, 's')).toBe(duplicate);
  });
});

describe.skipIf(!mongoJavaServerInstalled() && !isCi())(
  'MongoDB adapters with the server stopped (mongo-java-server)',
  () => {
    let server: MongoJavaServer | undefined;
    let client: MongoClient | undefined;

    afterEach(async () => {
      await client?.close();
      await server?.stop();
      client = undefined;
      server = undefined;
    });

    it('webhook endpoint, partner and read model stores reject with StorageUnavailableError', async () => {
      server = await startMongoJavaServer();
      client = await MongoClient.connect(server.url, { serverSelectionTimeoutMS: 1_000 });
      const db = client.db(uniqueDbName('storage_errors'));
      const endpoints = new MongoWebhookEndpointStore(db);
      const partners = new MongoPartnerStore(db);
      const readModels = new MongoReadModelStore(db);
      expect(await endpoints.save(endpoint(1), null)).toBe(true);
      await server.stop();
      server = undefined;

      await expect(endpoints.save(endpoint(2), 1)).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(endpoints.save({ ...endpoint(1), partner_id: 'p-2' }, null)).rejects.toMatchObject({
        reason: 'unreachable',
      });
      await expect(endpoints.get('p-1', 'sandbox')).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(partners.findKeyByHash('hash')).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(partners.revokeKey('key-1', '2026-01-01T00:00:00.000Z')).rejects.toBeInstanceOf(
        StorageUnavailableError,
      );
      await expect(readModels.put('orders', { id: 'o-1', seq: 1, versions: {}, doc: {} }, null)).rejects.toBeInstanceOf(
        StorageUnavailableError,
      );
      // What a projection starting alone and the operators' reads ask of it too.
      await expect(readModels.checkpoint('orders-list')).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(readModels.saveCheckpoint('orders-list', 5n)).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(readModels.pageById('orders', null, 10)).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(readModels.count('orders')).rejects.toBeInstanceOf(StorageUnavailableError);
    }, 30_000);

    it("the service's rate limiter rejects with StorageUnavailableError, not the driver's error", async () => {
      server = await startMongoJavaServer();
      const dataDir = tempDataDir();
      const stores = await openStores(
        loadConfig({
          DATA_DIR: dataDir,
          ...mongoReadStoreEnv(server.url, uniqueDbName('storage_errors')),
        }),
      );
      try {
        const limiter = stores.rateLimiterFactory(600);
        expect((await limiter.consume('key-1', 1)).remainingPoints).toBe(599);
        await server.stop();
        server = undefined;
        await expect(limiter.consume('key-1', 1)).rejects.toBeInstanceOf(StorageUnavailableError);
      } finally {
        await stores.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }, 60_000);
  },
);

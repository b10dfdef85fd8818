// Rate-limit counters on MongoDB (rate-limiter-flexible's RateLimiterMongo) as the service opens
// them, on every MongoDB wire server of the run: one counter per key however the first requests race.
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { loadConfig } from '../../src/config.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { mongoTestServers, uniqueDbName, mongoReadStoreEnv } from '../support/mongo-server.js';
import { tempDataDir } from '../support/service.js';

for (const server of mongoTestServers('rate limits on MongoDB')) {
  describe.skipIf(!server.url)(`rate-limit counters on MongoDB [${server.name}]`, () => {
    const processes: Stores[] = [];
    const dirs: string[] = [];
    beforeAll(async () => {
      const env = mongoReadStoreEnv(server.url!, uniqueDbName('rate_limits'));
      for (let i = 0; i < 2; i++) {
        const dir = tempDataDir();
        dirs.push(dir);
        processes.push(await openStores(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', ...env })));
      }
    });
    afterAll(async () => {
      await processes[0]?.mongo?.dropDatabase();
      for (const p of processes) await p.close();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('when the stores open, then the counters have a unique index on the key, and a TTL index where the server has them', async () => {
      const indexes = await processes[0]!.mongo!.collection('rate_limits').listIndexes().toArray();
      expect(indexes.find((i) => i.name === 'key_1')).toMatchObject({ key: { key: 1 }, unique: true });
      const ttl = indexes.find((i) => i.name === 'expire_-1');
      if (server.name === 'FerretDB') expect(ttl).toBeUndefined();
      else expect(ttl).toMatchObject({ key: { expire: -1 }, expireAfterSeconds: 0 });
    });

    it('when the first requests of a key reach two processes at once, then they count on one counter', async () => {
      const limiters = processes.map((p) => p.rateLimiterFactory(1000));
      const key = `key_${randomBytes(4).toString('hex')}`;
      await Promise.all(Array.from({ length: 12 }, (_, i) => limiters[i % 2]!.consume(key)));
      expect(await processes[0]!.mongo!.collection('rate_limits').countDocuments({ key: `rl1000:${key}` })).toBe(1);
    });

    it('when one key spends its budget across two processes, then the next request is refused with a wait', async () => {
      const limiters = processes.map((p) => p.rateLimiterFactory(5));
      const key = `key_${randomBytes(4).toString('hex')}`;
      for (let i = 0; i < 5; i++) await limiters[i % 2]!.consume(key);
      const refused: unknown = await limiters[1]!.consume(key).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RateLimiterRes);
      expect((refused as RateLimiterRes).msBeforeNext).toBeGreaterThan(0);
    });
  });
}

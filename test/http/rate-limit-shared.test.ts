import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestService, tempDataDir, type TestPartner, type TestService } from '../support/service.js';
import { mongoTestServers, uniqueDbName, mongoReadStoreEnv } from '../support/mongo-server.js';

for (const server of mongoTestServers('shared rate limits (READ_STORE=mongodb)')) {
  describe.skipIf(!server.url)(`rate limits shared by several service processes (MongoDB) [${server.name}]`, () => {
    const services: TestService[] = [];
    let p: TestPartner;
    beforeAll(async () => {
      const env = mongoReadStoreEnv(server.url!, uniqueDbName('ratelimit'));
      // Two processes of one deployment: one event log (DATA_DIR, SQLite WAL) and one MongoDB.
      const dataDir = tempDataDir();
      services.push(await startTestService({ env, dataDir }), await startTestService({ env, dataDir }));
      p = await services[0]!.partner({ rateLimitPerMin: 6 });
    });
    afterAll(async () => {
      await services[0]?.stop();
      await services[1]?.close(); // also removes the shared DATA_DIR
    });

    it('when requests with one key alternate between two processes, then they draw on one budget', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await services[i % 2]!.http.get('/v1/ping').set(bearer(p.live));
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    });

    it('when a key is created through one process, then the other authenticates it (keys live in MongoDB)', async () => {
      const q = await services[1]!.partner();
      expect((await services[0]!.http.get('/v1/ping').set(bearer(q.sandbox))).status).toBe(200);
    });
  });
}

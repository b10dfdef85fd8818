import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { bearer, startTestService, type TestPartner, type TestService } from '../support/service.js';
import { requireMongoUrl, uniqueDbName } from '../support/mongo-server.js';

const url = requireMongoUrl('shared rate limits (READ_STORE=mongodb)');
const services: TestService[] = [];
let p: TestPartner;

describe.skipIf(!url)('rate limits shared by several service processes (MongoDB)', () => {
  beforeAll(async () => {
    const env = { READ_STORE: 'mongodb', MONGODB_URL: url!, MONGODB_DB: uniqueDbName('ratelimit'), WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64') };
    services.push(await startTestService({ env }), await startTestService({ env }));
    p = await services[0]!.partner({ rateLimitPerMin: 6 });
  });
  afterAll(async () => {
    for (const s of services) await s.close();
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

import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PartnerAdmin } from '../../src/application/partners.js';
import { loadConfig } from '../../src/config.js';
import { buildService, type Service } from '../../src/composition/server.js';
import { openStores, type Stores } from '../../src/composition/stores.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { http, type Http } from '../support/http.js';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import { bearer, tempDataDir } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { startReceiver, type Receiver } from './webhooks-fixture.js';

// What every delivery says about its sender, and what a failed attempt leaves in the log.

const version = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

let dataDir: string;
let stores: Stores;
let service: Service;
let api: Http;
let key: string;
let receiver: Receiver;
const lines: LogLine[] = [];

beforeAll(async () => {
  dataDir = tempDataDir();
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    SQLITE_SYNCHRONOUS: 'NORMAL',
    WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
  });
  const clock = new ManualClock();
  stores = await openStores(config);
  service = await buildService(config, stores, {
    logger: createLogger({ level: 'info', destination: jsonLineSink(lines) }),
    clock,
    webhooks: { lease: { ttlMs: 6 * 3600_000, tickMs: 3600_000 } },
  });
  api = http(service.app);
  key = (await new PartnerAdmin(stores.partners, clock, 1200).createPartner({ name: 'Agent' })).sandbox.key;
});
afterAll(async () => {
  await service.stop();
  await stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
afterEach(() => receiver?.close());

describe('every delivery', () => {
  it('when sent, then its User-Agent names the service and its package.json version', async () => {
    receiver = await startReceiver();
    const put = await api.put('/v1/webhooks/endpoint').set(bearer(key)).send({ url: receiver.url });
    expect(put.status).toBeLessThan(300);
    expect((await api.post('/v1/webhooks/test').set(bearer(key)).send({})).status).toBe(202);
    const [got] = await receiver.waitFor(1);
    expect(got!.headers['user-agent']).toBe(`partner-ordering-service/${version} (webhooks)`);
  });

  it('when an attempt fails, then one warn line names the delivery, the endpoint host and a short reason, never the secret or the body', async () => {
    receiver = await startReceiver();
    receiver.reply = () => ({ status: 502 });
    const put = await api.put('/v1/webhooks/endpoint').set(bearer(key)).send({ url: receiver.url });
    const secret = (await api.post('/v1/webhooks/endpoint/rotate-secret').set(bearer(key)).send({})).body.data
      .secret as string;
    expect(put.status).toBeLessThan(300);
    const sent = await api.post('/v1/webhooks/test').set(bearer(key)).send({});
    const deliveryId = sent.body.data.id as string;
    const [got] = await receiver.waitFor(1);
    const line = await waitFor(() =>
      lines.find((l) => l.delivery_id === deliveryId && l.msg === 'webhook attempt failed'),
    );
    expect(line).toMatchObject({
      level: 40,
      delivery_id: deliveryId,
      endpoint_host: new URL(receiver.url).host,
      status: 502,
      reason: 'receiver answered HTTP 502',
      attempt: 1,
      trigger: 'schedule',
    });
    const text = lines.map((l) => JSON.stringify(l)).join('\n');
    expect(text).not.toContain(secret);
    expect(text).not.toContain(got!.body);
    expect(text).not.toContain((JSON.parse(got!.body) as { data: { message: string } }).data.message);
  });
});

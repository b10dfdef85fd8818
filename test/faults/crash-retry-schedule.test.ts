import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { ensureBuilt, runCli, startChildService, type ChildService } from '../support/child-service.js';
import { tempDataDir } from '../support/service.js';
import { orderBody } from '../support/orders.js';
import { startReceiver, type Receiver } from '../http/webhooks-fixture.js';

/** A real kill -9 between a failed attempt and its retry (1 minute later on the real clock). */
let dataDir: string;
let service: ChildService | undefined;
let receiver: Receiver;
const ENV = { WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' };

beforeAll(async () => {
  ensureBuilt();
  dataDir = tempDataDir();
  receiver = await startReceiver();
});
afterAll(async () => {
  service?.child.kill('SIGKILL');
  await receiver.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Delivery {
  id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
}

describe('kill -9 in the middle of a retry schedule', () => {
  it('when the service dies after a failed attempt, then after a restart the retry happens once, on time', async () => {
    const { sandbox_key: key } = JSON.parse(
      runCli(dataDir, ['partners', 'create', '--name', 'Retry', '--json']).stdout,
    );
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    receiver.reply = (n) => ({ status: n === 0 ? 503 : 200 });
    service = await startChildService(dataDir, ENV);
    expect(
      (
        await fetch(`${service.url}/v1/webhooks/endpoint`, {
          method: 'PUT',
          headers,
          body: JSON.stringify({ url: receiver.url }),
        })
      ).status,
    ).toBe(201);
    const placed = await fetch(`${service.url}/v1/orders`, {
      method: 'POST',
      headers: { ...headers, 'Idempotency-Key': 'retry-schedule-1' },
      body: JSON.stringify(orderBody()),
    });
    expect(placed.status).toBe(201);
    await receiver.waitFor(1, 10_000);

    const deliveries = async (): Promise<Delivery[]> =>
      ((await (await fetch(`${service!.url}/v1/webhooks/deliveries`, { headers })).json()) as { data: Delivery[] })
        .data;
    let before: Delivery | undefined;
    for (let i = 0; i < 100 && before?.status !== 'retrying'; i++) [before] = await deliveries();
    expect(before).toMatchObject({ status: 'retrying', attempt_count: 1 });

    service.child.kill('SIGKILL');
    await service.exited;
    service = await startChildService(dataDir, ENV);
    const [after] = await deliveries();
    expect(after).toMatchObject({
      id: before!.id,
      status: 'retrying',
      attempt_count: 1,
      next_attempt_at: before!.next_attempt_at,
    });

    // The retry is due one minute after the failure; it arrives once, and the delivery succeeds.
    await receiver.waitFor(2, 90_000);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(before!.next_attempt_at!));
    let done: Delivery | undefined;
    for (let i = 0; i < 100 && done?.status !== 'succeeded'; i++) [done] = await deliveries();
    expect(done).toMatchObject({ id: before!.id, status: 'succeeded', attempt_count: 2 });
    expect(receiver.received.filter((r) => r.event.type === 'order.created')).toHaveLength(2);
  }, 150_000);
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { ManualClock } from '../../src/shared/clock.js';
import { attemptDelivery, type AttemptDeps } from '../../src/webhooks/attempt.js';
import { deliveryStream, type DeliveryScheduledData } from '../../src/domain/webhook/delivery-events.js';
import { DeliveryLog, type LoadedDelivery } from '../../src/webhooks/delivery-log.js';
import { ABANDONED_AFTER_MS } from '../../src/domain/webhook/delivery-state.js';
import type { WebhookEndpoints } from '../../src/webhooks/endpoints.js';
import { DeliveryScheduler } from '../../src/webhooks/scheduler.js';
import { recordingAppends } from '../support/recording-store.js';

// Several replicas make attempts of the same deliveries: each attempt is claimed in the delivery's
// stream before it is sent, so it reaches the receiver once however many replicas try.

let dir: string;
let store: SqliteEventStore;
let log: DeliveryLog;
let clock: ManualClock;
let server: http.Server;
let url: string;
let received: string[];
/** Lets a test hold the receiver's answers. */
let answer: () => Promise<void>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'claims-'));
  store = new SqliteEventStore({ file: join(dir, 'events.db'), synchronous: 'NORMAL' });
  log = new DeliveryLog(store);
  clock = new ManualClock('2026-11-21T12:00:00Z');
  received = [];
  answer = async () => undefined;
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body).id as string);
      void answer().then(() => res.writeHead(200).end('ok'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function deps(sender: string): AttemptDeps {
  const endpoints = {
    get: async () => ({ url, events: null }),
    signingSecrets: () => ['whsec_test'],
  } as unknown as WebhookEndpoints;
  return { log, endpoints, clock, urls: { allowPrivate: true }, sender };
}

async function scheduleOne(n = 1): Promise<string> {
  const id = `whd_test${n}`;
  const at = clock.now().toISOString();
  const data: DeliveryScheduledData = {
    delivery_id: id,
    partner_id: 'ptn_1',
    environment: 'sandbox',
    event_id: `evt_${n}`,
    event_type: 'order.created',
    order_id: `sbx_ord_${n}`,
    order_revision: 0,
    type_index: 0,
    url,
    event: { id: `evt_${n}`, type: 'order.created' } as never,
    at,
    next_attempt_at: at,
  };
  await log.schedule(data, { causationId: null, correlationId: null, requestId: null });
  return id;
}

const types = async (id: string) => (await store.readStream(deliveryStream(id))).map((e) => e.type);
const noCause = { causationId: null, correlationId: null, requestId: null };

/** A claim as a replica appends it just before sending; the replica is then killed. */
async function claimAs(id: string, sender: string): Promise<void> {
  const loaded = (await log.load(id))!;
  const data = {
    delivery_id: id,
    attempt: loaded.state.attempt_count + 1,
    trigger: 'schedule' as const,
    at: clock.now().toISOString(),
    sender,
  };
  expect(await log.record(loaded.state, [{ type: 'WebhookAttemptStarted', data }], loaded.revision, noCause)).toBe(
    true,
  );
}

/** What a sender records when it finds such a claim (without then sending). */
async function abandonOnly(loaded: LoadedDelivery): Promise<void> {
  const claim = loaded.state.sending!;
  const data = {
    delivery_id: loaded.state.id,
    attempt: claim.attempt,
    trigger: claim.trigger,
    claimed_at: claim.at,
    sender: claim.sender,
    at: clock.now().toISOString(),
  };
  expect(await log.record(loaded.state, [{ type: 'WebhookAttemptAbandoned', data }], loaded.revision, noCause)).toBe(
    true,
  );
}

describe('webhook attempts claimed before they are sent', () => {
  it('when two replicas attempt the same due delivery at once, then it is sent once and recorded once', async () => {
    const id = await scheduleOne();
    const [a, b] = await Promise.all([
      attemptDelivery(deps('replica-a'), id, 'schedule'),
      attemptDelivery(deps('replica-b'), id, 'schedule'),
    ]);
    expect(received).toEqual(['evt_1']);
    expect(await types(id)).toEqual(['WebhookDeliveryScheduled', 'WebhookAttemptStarted', 'WebhookAttemptSucceeded']);
    // The loser saw the claim (or the outcome): nothing due for it.
    expect([a!.status, b!.status]).toContain('succeeded');
    const [, started] = await store.readStream(deliveryStream(id));
    expect(started!.data).toMatchObject({ attempt: 1, trigger: 'schedule' });
  });

  it('when a replica finds an attempt claimed by another that is still within its time, then it does not send', async () => {
    const id = await scheduleOne();
    let release!: () => void;
    answer = () => new Promise<void>((r) => (release = r));
    const first = attemptDelivery(deps('replica-a'), id, 'schedule');
    await waitFor(() => received.length === 1);
    const state = await attemptDelivery(deps('replica-b'), id, 'schedule');
    expect(state!.sending).toMatchObject({ sender: 'replica-a', attempt: 1 });
    release();
    expect((await first)!.status).toBe('succeeded');
    expect(received).toEqual(['evt_1']);
  });

  it('when the claiming replica died before recording an outcome, then once the claim is abandoned the same attempt is made at once, using up nothing', async () => {
    const id = await scheduleOne();
    await claimAs(id, 'dead');

    clock.advance(ABANDONED_AFTER_MS - 1);
    expect((await attemptDelivery(deps('replica-b'), id, 'schedule'))!.sending).toMatchObject({ sender: 'dead' });
    expect(received).toEqual([]);

    clock.advance(1);
    const after = (await attemptDelivery(deps('replica-b'), id, 'schedule'))!;
    expect(received).toEqual(['evt_1']);
    expect(after).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      scheduled_attempts: 1,
      sending: null,
      abandoned_claims: 0,
    });
    expect(after.attempts).toHaveLength(1); // the partner's log shows the attempt that was made
    expect(await types(id)).toEqual([
      'WebhookDeliveryScheduled',
      'WebhookAttemptStarted',
      'WebhookAttemptAbandoned',
      'WebhookAttemptStarted',
      'WebhookAttemptSucceeded',
    ]);
  });

  it('when the claiming replica is a process known to be gone, then its claim is abandoned at once', async () => {
    const id = await scheduleOne();
    await claimAs(id, 'gone');
    const state = await attemptDelivery({ ...deps('replica-b'), senderGone: (s) => s === 'gone' }, id, 'schedule');
    expect(state!.status).toBe('succeeded');
    expect(received).toEqual(['evt_1']);
  });

  it('when claims of a delivery are abandoned again and again, then the third is recorded as a failed attempt and the schedule takes over', async () => {
    const id = await scheduleOne();
    const gone = { ...deps('replica-b'), senderGone: (s: string) => s.startsWith('crashed') };
    // Twice: a sender claims, dies as it sends, and the next one abandons its claim.
    for (let n = 1; n <= 2; n++) {
      await claimAs(id, `crashed-${n}`);
      await abandonOnly((await log.load(id))!);
    }
    // A third sender dies the same way; replica-b finds its claim.
    await claimAs(id, 'crashed-3');
    const state = (await attemptDelivery(gone, id, 'schedule'))!;
    expect(received).toEqual([]);
    expect(state).toMatchObject({
      status: 'retrying',
      attempt_count: 1,
      scheduled_attempts: 1,
      sending: null,
      abandoned_claims: 0,
    });
    expect(state.attempts[0]).toMatchObject({
      status: null,
      error: expect.stringMatching(/^no outcome was recorded 3 times in a row/),
    });
    expect(Date.parse(state.next_attempt_at!) - clock.now().getTime()).toBe(60_000);
  });

  it('when a redelivery is asked for while an attempt is out, then it is refused as in progress and appends nothing; once the attempt is recorded, it goes out', async () => {
    const id = await scheduleOne();
    let release!: () => void;
    answer = () => new Promise<void>((r) => (release = r));
    const first = attemptDelivery(deps('replica-a'), id, 'schedule');
    await waitFor(() => received.length === 1);
    await expect(attemptDelivery(deps('replica-b'), id, 'redelivery', 'req_1')).rejects.toMatchObject({
      code: 'delivery_in_progress',
      status: 409,
    });
    expect(await types(id)).toEqual(['WebhookDeliveryScheduled', 'WebhookAttemptStarted']);
    release();
    answer = async () => undefined;
    expect((await first)!.status).toBe('succeeded');
    const final = (await attemptDelivery(deps('replica-b'), id, 'redelivery', 'req_2'))!;
    expect(received).toEqual(['evt_1', 'evt_1']);
    expect(final.attempts.map((a) => a.trigger)).toEqual(['schedule', 'redelivery']);
    // The request and its claim are one append: a redelivery is recorded only when it is made.
    expect(await types(id)).toEqual([
      'WebhookDeliveryScheduled',
      'WebhookAttemptStarted',
      'WebhookAttemptSucceeded',
      'WebhookRedeliveryRequested',
      'WebhookAttemptStarted',
      'WebhookAttemptSucceeded',
    ]);
  });
});

describe('what an attempt waits for', () => {
  it("when a scheduled attempt is made, then its claim and outcome are 'ordered'; a redelivery's outcome, which its caller is answered with, waits for the disk", async () => {
    const { events: recording, appends } = recordingAppends(store);
    const asked = () => appends.flatMap((a) => a.types.map((type) => [type, a.durability]));
    const id = await scheduleOne();
    const attemptDeps = { ...deps('replica-a'), log: new DeliveryLog(recording) };
    expect((await attemptDelivery(attemptDeps, id, 'schedule'))!.status).toBe('succeeded');
    expect(asked()).toEqual([
      ['WebhookAttemptStarted', 'ordered'],
      ['WebhookAttemptSucceeded', 'ordered'],
    ]);
    appends.length = 0;
    await attemptDelivery(attemptDeps, id, 'redelivery');
    expect(asked()).toEqual([
      ['WebhookRedeliveryRequested', 'ordered'],
      ['WebhookAttemptStarted', 'ordered'],
      ['WebhookAttemptSucceeded', 'durable'],
    ]);
    expect(received).toEqual(['evt_1', 'evt_1']);
  });
});

describe('redeliveries and the per-endpoint limit', () => {
  it('when the endpoint already has its share of attempts in flight, then a redelivery waits for a free slot', async () => {
    const ids = [await scheduleOne(1), await scheduleOne(2)];
    let inFlight = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    answer = () => {
      most = Math.max(most, ++inFlight);
      return new Promise<void>((r) => releases.push(() => (inFlight--, r())));
    };
    const attemptDeps = deps('replica-a');
    const scheduler = new DeliveryScheduler(
      { attempt: (id, trigger) => attemptDelivery(attemptDeps, id, trigger), clock },
      { perEndpoint: 1 },
    );
    scheduler.track((await log.load(ids[0]!))!.state);
    const scheduled = scheduler.runDue();
    await waitFor(() => received.length === 1);
    const redelivery = scheduler.attemptNow(ids[1]!, { partner_id: 'ptn_1', environment: 'sandbox' });
    // Let the event loop turn a few times: the redelivery must not start while the slot is taken.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(received).toEqual(['evt_1']);
    releases.shift()!();
    await waitFor(() => received.length === 2);
    releases.shift()!();
    await Promise.all([scheduled, redelivery]);
    expect(most).toBe(1);
    expect(received).toEqual(['evt_1', 'evt_2']);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

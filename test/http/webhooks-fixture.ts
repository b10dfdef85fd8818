import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import Stripe from 'stripe';
import { expect } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { Scope } from '../../src/domain/scopes.js';
import type { WebhookOptions } from '../../src/webhooks/module.js';
import type { WebhookEnvelope } from '../../src/domain/webhook/envelope.js';
import type { PublicOrder } from '../../src/domain/order/public-order.js';
import { bearer, startTestService, type TestPartner } from '../support/service.js';

// Shared by the webhook HTTP tests: a real receiver on loopback and a service whose webhook knobs
// (resolver, reply wait) can be injected. No fixed sleeps: tests wait on received counts.

/** The envelope as a receiver sees it: `data` is one of the documented shapes. */
export type ReceivedEvent = Omit<WebhookEnvelope, 'data'> & {
  data: { order?: PublicOrder; previous_status?: string; message?: string; partner_id?: string };
};

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  event: ReceivedEvent;
  /** performance.now() when the request arrived, and when our answer to it was finished. */
  arrivedAt: number;
  answeredAt?: number;
}

/** `until`: answer only once it settles (a receiver held open for as long as a test needs). */
export type Reply = { status: number; delayMs?: number; until?: Promise<unknown>; headers?: Record<string, string> };

export interface Receiver {
  url: string;
  received: Received[];
  /** How the receiver answers the n-th request (0-based); 200 by default. */
  reply: (n: number, req: http.IncomingMessage) => Reply;
  /** Resolves once `count` requests have arrived; fails after `timeoutMs` (30 s: only a hang should reach it). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    reply: () => ({ status: 200 }),
    waitFor: (count, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const done = () => resolve(receiver.received.slice(0, count));
        if (receiver.received.length >= count) return done();
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${receiver.received.length} of ${count} requests`)),
          timeoutMs,
        );
        waiters.push({ count, resolve: () => (clearTimeout(timer), done()) });
      }),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const n = receiver.received.length;
      const received: Received = {
        headers: req.headers,
        body,
        event: JSON.parse(body) as ReceivedEvent,
        arrivedAt: performance.now(),
      };
      receiver.received.push(received);
      res.on('finish', () => (received.answeredAt = performance.now()));
      for (const w of waiters.filter((x) => receiver.received.length >= x.count)) w.resolve();
      const reply = receiver.reply(n, req);
      const answer = () => res.writeHead(reply.status, reply.headers).end('ok');
      if (reply.until) void reply.until.then(answer, answer);
      else if (reply.delayMs) setTimeout(answer, reply.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}

/** Stripe's own verifier (an implementation this project did not write), at the service clock's time. */
export function expectStripeVerifies(r: Received, secret: string, clock: ManualClock): void {
  const header = r.headers['service-signature'];
  expect(typeof header).toBe('string');
  expect(
    Stripe.webhooks.signature!.verifyHeader(r.body, header as string, secret, 300, undefined, clock.now().getTime()),
  ).toBe(true);
}

/** A test service whose webhooks may go to loopback receivers over http. */
export async function startWebhookService(
  options: Pick<Parameters<typeof startTestService>[0] & object, 'readModels'> & {
    dataDir?: string;
    clock?: ManualClock;
    env?: Record<string, string>;
    webhooks?: WebhookOptions;
  } = {},
) {
  const t = await startTestService({ ...options, env: { WEBHOOKS_ALLOW_PRIVATE_URLS: 'true', ...options.env } });
  return {
    ...t,
    scheduler: t.service.webhooks.scheduler,
    partner: (name = 'Webhook Partner', scopes?: Scope[]): Promise<TestPartner> =>
      t.partner({ name, ...(scopes ? { scopes } : {}) }),
  };
}

export type WebhookService = Awaited<ReturnType<typeof startWebhookService>>;

/** Registers `url` for the key's environment and returns the signing secret from the 201. */
export async function register(ts: WebhookService, key: string, url: string, events?: string[]): Promise<string> {
  const res = await ts.http
    .put('/v1/webhooks/endpoint')
    .set(bearer(key))
    .send({ url, ...(events ? { events } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.secret as string;
}

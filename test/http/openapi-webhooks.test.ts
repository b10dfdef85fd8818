import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { EVENT_TYPES } from '../../src/domain/webhook/event-types.js';
import { RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule.js';
import { bearer } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { placeOrder } from '../support/orders.js';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from './webhooks-fixture.js';

type Webhook = {
  post: {
    summary: string;
    description: string;
    parameters: Array<{ name: string; in: string; required?: boolean; schema: object; description: string }>;
    requestBody: { content: { 'application/json': { schema: object; example: unknown } } };
    responses: Record<string, unknown>;
  };
};
type Doc = { webhooks: Record<string, Webhook> };

const ADMIN_TOKEN = 'webhooks-doc-admin-token-0123456789';

let ts: WebhookService;
let receiver: Receiver;
let doc: Doc;
beforeAll(async () => {
  ts = await startWebhookService({ env: { ADMIN_TOKEN } });
  receiver = await startReceiver();
  doc = (await ts.http.get('/v1/openapi.json')).body as Doc;
});
afterAll(async () => {
  await receiver?.close();
  await ts.close();
});

const pointer = (...parts: string[]) =>
  '#/' + parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

describe('the webhooks section of /v1/openapi.json', () => {
  it('describes every event type: its payload, the signature header and how to verify it, and the retry schedule', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const { post } = doc.webhooks[type]!;
      const headers = Object.fromEntries(post.parameters.filter((p) => p.in === 'header').map((p) => [p.name, p]));
      expect(Object.keys(headers).sort()).toEqual([
        'Service-Event-Id',
        'Service-Event-Type',
        'Service-Signature',
        'Service-Timestamp',
        'User-Agent',
      ]);
      expect(headers['Service-Signature']!.description).toMatch(/HMAC-SHA256.*whsec_.*constant time.*300 s/s);
      // The schedule the sender uses, in words: attempt 1 at once, then 1 min ... 12 h.
      expect(post.description).toContain('1 min, 5 min, 30 min, 2 h, 6 h, 12 h');
      expect(post.description).toContain(`after ${RETRY_DELAYS_MS.length} failed attempts`);
      expect(post.requestBody.content['application/json'].example).toMatchObject({ type, object: 'event' });
      expect(Object.keys(post.responses)).toEqual(['200']);
    }
  });

  it('every event a receiver gets, of every type, matches the documented payload schema and headers', async () => {
    const p = await ts.partner('Webhook Document Partner');
    await register(ts, p.sandbox, receiver.url);
    const placed = await placeOrder(ts.http, p.sandbox);
    expect(placed.status).toBe(201);
    const id = placed.body.data.id as string;
    // placed -> confirmed -> preparing -> ready -> out_for_delivery -> delivered (cash settled on delivery).
    for (let i = 0; i < 5; i++)
      expect((await ts.http.post(`/v1/sandbox/orders/${id}/advance`).set(bearer(p.sandbox)).send({})).status).toBe(200);
    const refund = await ts.http
      .post(`/internal/orders/${id}/refund`)
      .set(bearer(ADMIN_TOKEN))
      .send({ amount: 0.7, reason: 'A missing hummus.' });
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    expect((await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox))).status).toBe(202);

    const types = () => new Set(receiver.received.map((r) => r.event.type));
    await waitFor(
      async () => {
        await ts.scheduler.runDue();
        return types().size === EVENT_TYPES.length;
      },
      { what: `every event type at the receiver (got ${[...types()].join(', ')})` },
    );

    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema(doc, 'doc');
    const problems: string[] = [];
    for (const r of receiver.received) {
      const type = r.event.type;
      const post = doc.webhooks[type]!.post;
      const body = ajv.getSchema(
        `doc${pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema')}`,
      )!;
      if (!body(JSON.parse(r.body))) problems.push(`${type} body: ${ajv.errorsText(body.errors)}`);
      post.parameters.forEach((h, i) => {
        const value = r.headers[h.name.toLowerCase()];
        const schema = ajv.getSchema(`doc${pointer('webhooks', type, 'post', 'parameters', String(i), 'schema')}`)!;
        if (h.required && value === undefined) problems.push(`${type}: no ${h.name}`);
        else if (value !== undefined && !schema(value))
          problems.push(`${type} ${h.name}: ${ajv.errorsText(schema.errors)}`);
      });
    }
    expect(problems).toEqual([]);
  });
});

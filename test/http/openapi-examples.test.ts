import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {
  OPERATION_EXAMPLES,
  WEBHOOK_EXAMPLES,
  type ExampleDependency,
  type OperationExample,
} from '../../src/http/openapi/examples.js';
import { EVENT_TYPES } from '../../src/domain/webhook/event-types.js';
import { startTestService, type TestPartner, type TestService } from '../support/service.js';
import { newKey } from '../support/orders.js';

type Parameter = {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  explode?: boolean;
  schema?: { type?: unknown; properties?: Record<string, unknown> };
};
type Media = { schema?: unknown; example?: unknown };
type Operation = {
  operationId: string;
  security?: Array<Record<string, unknown>>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type Doc = { paths: Record<string, Record<string, Operation>>; webhooks?: Record<string, Record<string, Operation>> };

const ADMIN_TOKEN = 'examples-admin-token-0123456789abcdef';

let t: TestService;
let partner: TestPartner;
let docs: Array<{ name: string; doc: Doc }>;
beforeAll(async () => {
  t = await startTestService({
    env: { ADMIN_TOKEN, WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' },
    // The examples' webhook host (hooks.example.com) resolves to loopback, where nothing listens on 443:
    // registration passes, and every delivery attempt fails at once (refused).
    webhooks: { resolve: async () => ['127.0.0.1'] },
  });
  partner = await t.partner({ name: 'Examples Partner' });
  docs = [
    { name: '/v1/openapi.json', doc: t.service.app.openApiDocument() as Doc },
    { name: '/internal/openapi.json', doc: t.service.app.internalOpenApiDocument() as Doc },
  ];
});
afterAll(() => t.close());

function operations(doc: Doc) {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op })),
  );
}

const pointer = (...parts: string[]) =>
  '#/' + parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

function validator(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(doc, 'doc');
  return (value: unknown, ...parts: string[]): string | null => {
    const validate = ajv.getSchema(`doc${pointer(...parts)}`);
    if (!validate) return `cannot resolve ${parts.join('/')}`;
    return validate(value) ? null : ajv.errorsText(validate.errors);
  };
}

describe('OpenAPI examples', () => {
  it('every operation of both documents has a request example (when it takes a body or required parameters) and a response example, in the served document', () => {
    const missing: string[] = [];
    for (const { name, doc } of docs) {
      for (const { path, method, op } of operations(doc)) {
        const where = `${name}: ${method.toUpperCase()} ${path} (${op.operationId})`;
        const example = OPERATION_EXAMPLES[op.operationId];
        if (!example) {
          missing.push(`${where}: no entry in src/http/openapi/examples.ts`);
          continue;
        }
        for (const p of op.parameters ?? []) {
          if (p.required && p.example === undefined) missing.push(`${where}: no example for ${p.in} ${p.name}`);
        }
        const body = op.requestBody?.content?.['application/json'];
        if (body && body.example === undefined && (op.requestBody?.required || example.request?.body !== undefined))
          missing.push(`${where}: no request body example`);
        const answer = op.responses[String(example.response.status)];
        if (!answer) missing.push(`${where}: status ${example.response.status} is not documented`);
        else {
          const media = answer.content?.[example.response.contentType ?? 'application/json'];
          if (!media || media.example === undefined) missing.push(`${where}: no response example`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('every example matches the schemas of its operation (parameters, request body, response body)', () => {
    const problems: string[] = [];
    for (const { name, doc } of docs) {
      const check = validator(doc);
      for (const { path, method, op } of operations(doc)) {
        const example = OPERATION_EXAMPLES[op.operationId];
        if (!example) continue;
        const where = `${name}: ${method.toUpperCase()} ${path}`;
        (op.parameters ?? []).forEach((p, i) => {
          if (p.example === undefined) return;
          const error = check(p.example, 'paths', path, method, 'parameters', String(i), 'schema');
          if (error) problems.push(`${where}: ${p.in} ${p.name} ${JSON.stringify(p.example)}: ${error}`);
        });
        // An exploded object query parameter (lat and lng together) is sent as one parameter per property.
        const declared = (op.parameters ?? []).flatMap((p) =>
          p.in === 'query' && p.schema?.type === 'object' && p.explode !== false
            ? Object.keys(p.schema.properties ?? {}).map((n) => `query:${n}`)
            : [`${p.in}:${p.name.toLowerCase()}`],
        );
        const given = [
          ...Object.keys(example.request?.params ?? {}).map((n) => `path:${n}`),
          ...Object.keys(example.request?.query ?? {}).map((n) => `query:${n}`),
          ...Object.keys(example.request?.headers ?? {}).map((n) => `header:${n.toLowerCase()}`),
        ];
        for (const g of given) if (!declared.includes(g)) problems.push(`${where}: example sets undeclared ${g}`);
        if (example.request?.body !== undefined) {
          const error = op.requestBody?.content?.['application/json']
            ? check(example.request.body, 'paths', path, method, 'requestBody', 'content', 'application/json', 'schema')
            : 'the operation takes no JSON body';
          if (error) problems.push(`${where}: request body: ${error}`);
        }
        const contentType = example.response.contentType ?? 'application/json';
        if (contentType === 'application/json') {
          const error = check(
            example.response.body,
            'paths',
            path,
            method,
            'responses',
            String(example.response.status),
            'content',
            contentType,
            'schema',
          );
          if (error) problems.push(`${where}: response ${example.response.status}: ${error}`);
        } else if (typeof example.response.body !== 'string') {
          problems.push(`${where}: a ${contentType} example is the start of the text`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('every webhook event type is in the partner document with its example, and the example matches its schema', () => {
    const doc = docs[0]!.doc;
    const check = validator(doc);
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const media = doc.webhooks![type]!.post!.requestBody!.content!['application/json']!;
      expect(media.example, type).toEqual(WEBHOOK_EXAMPLES[type]);
      expect(
        check(media.example, 'webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'),
        type,
      ).toBeNull();
    }
  });

  it('every example request, sent to a freshly started service with a sandbox key, gets the documented status', async () => {
    const answers = new Map<string, { status: number; body: unknown; text: string }>();
    const all = docs.flatMap(({ doc }) => operations(doc));
    const find = (operationId: string) => {
      const found = all.find((o) => o.op.operationId === operationId);
      if (!found) throw new Error(`no operation ${operationId}`);
      return found;
    };

    /** Sends one example; `fresh`: as a prerequisite of another (a new Idempotency-Key, any 2xx). */
    async function send(operationId: string, fresh: boolean, over?: Record<string, unknown>) {
      const { path, method, op } = find(operationId);
      const example: OperationExample = OPERATION_EXAMPLES[operationId]!;
      for (const other of example.prepare ?? []) await send(other, true);
      const params: Record<string, string> = { ...example.request?.params };
      for (const [name, dependency] of Object.entries(example.uses ?? {})) params[name] = await produce(dependency);
      const url =
        path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name]!)) +
        (example.request?.query
          ? '?' +
            new URLSearchParams(
              Object.entries(example.request.query).map(([k, v]): [string, string] => [k, String(v)]),
            ).toString()
          : '');
      const call = t.http[method as 'get'](url);
      const security = Object.keys(op.security?.[0] ?? {})[0];
      if (security === 'apiKey') call.set('Authorization', `Bearer ${partner.sandbox}`);
      if (security === 'adminToken') call.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      for (const [name, value] of Object.entries(example.request?.headers ?? {}))
        call.set(name, fresh && name.toLowerCase() === 'idempotency-key' ? newKey() : value);
      const body = over ? { ...(example.request?.body as object), ...over } : example.request?.body;
      const res = await (body !== undefined ? call.send(body as object) : call);
      const answer = { status: res.status, body: res.body as unknown, text: res.text };
      if (fresh) expect(res.status, `${operationId} as a prerequisite: ${res.text}`).toBeLessThan(300);
      return answer;
    }

    async function produce(dependency: ExampleDependency): Promise<string> {
      const { body } = await send(dependency.operation, true, dependency.with);
      let value: unknown = body;
      for (const key of dependency.field.split('.')) value = (value as Record<string, unknown>)[key];
      if (typeof value !== 'string') throw new Error(`${dependency.operation} gave no ${dependency.field}`);
      if (!dependency.match) return value;
      const match = new RegExp(dependency.match).exec(value);
      if (!match?.[1]) throw new Error(`${dependency.operation} ${dependency.field} ${value} !~ ${dependency.match}`);
      return match[1];
    }

    const wrong: string[] = [];
    // Operations in the order they are listed: a fresh service sees the first call of each.
    for (const [operationId, example] of Object.entries(OPERATION_EXAMPLES)) {
      if (!all.some((o) => o.op.operationId === operationId)) {
        wrong.push(`${operationId}: not an operation of either document`);
        continue;
      }
      const answer = await send(operationId, false);
      answers.set(operationId, answer);
      if (answer.status !== example.response.status)
        wrong.push(
          `${operationId}: ${answer.status} instead of ${example.response.status}: ${answer.text.slice(0, 300)}`,
        );
    }
    // What the service answered each example, to write or refresh response bodies (examples.ts says how).
    if (process.env.EXAMPLES_CAPTURE)
      fs.writeFileSync(
        process.env.EXAMPLES_CAPTURE,
        JSON.stringify(
          Object.fromEntries([...answers].map(([k, v]) => [k, { status: v.status, body: v.body ?? v.text }])),
          null,
          2,
        ),
      );
    expect(wrong).toEqual([]);
  });
});

// The partner document states the catalog's constraints the service enforces (issue 26): lat and
// lng together, exactly one of subtotal and items, query numbers as plain decimals, trimmed
// lengths; and the service still refuses what it refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { bearer, type TestPartner, type TestService } from '../support/service.js';
import { startCatalogService } from './catalog-fixture.js';

type Parameter = {
  name: string;
  in: string;
  required?: boolean;
  style?: string;
  explode?: boolean;
  schema: Record<string, unknown>;
};
type Operation = { operationId: string; parameters?: Parameter[] };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

let t: TestService;
let p: TestPartner;
let get: (url: string) => ReturnType<TestService['http']['get']>;
let doc: Doc;
let ajv: Ajv2020;

beforeAll(async () => {
  ({ t, p, get } = await startCatalogService());
  doc = t.service.app.openApiDocument() as Doc;
  ajv = new Ajv2020({ strict: false });
  ajv.addSchema(doc, 'doc');
});
afterAll(() => t.close());

function operation(operationId: string): Operation {
  for (const ops of Object.values(doc.paths))
    for (const op of Object.values(ops)) if (op.operationId === operationId) return op;
  throw new Error(`no operation ${operationId}`);
}

function parameter(operationId: string, name: string): { parameter: Parameter; index: number } {
  const parameters = operation(operationId).parameters ?? [];
  const index = parameters.findIndex((q) => q.in === 'query' && q.name === name);
  if (index < 0) throw new Error(`${operationId} has no query parameter ${name}`);
  return { parameter: parameters[index]!, index };
}

/** Whether `value` is valid by the schema of a query parameter of the served document. */
function validParameter(operationId: string, name: string, value: unknown): boolean {
  const [path, method] = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => op.operationId === operationId)
      .map(([method]) => [path, method]),
  )[0]!;
  const { index } = parameter(operationId, name);
  const pointer = ['paths', path!, method!, 'parameters', String(index), 'schema']
    .map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1')))
    .join('/');
  return ajv.getSchema(`doc#/${pointer}`)!(value) as boolean;
}

const validPromoRequest = (body: unknown) =>
  ajv.getSchema('doc#/components/schemas/PromoCodeValidationRequest')!(body) as boolean;

const POINTED = [
  ['listOffers', '/v1/offers?'],
  ['listStores', '/v1/stores?'],
  ['search', '/v1/search?q=shawarma&'],
] as const;

describe('lat and lng in the partner document', () => {
  it.each(POINTED)(
    'when %s is documented, then lat and lng are one optional form-exploded object parameter requiring both',
    (operationId) => {
      const names = (operation(operationId).parameters ?? []).map((q) => q.name);
      expect(names).not.toContain('lat');
      expect(names).not.toContain('lng');
      const { parameter: point } = parameter(operationId, 'point');
      expect(point).toMatchObject({ in: 'query', required: false, style: 'form', explode: true });
      expect(point.schema).toMatchObject({ type: 'object', required: ['lat', 'lng'], additionalProperties: false });
      expect(Object.keys(point.schema.properties as object)).toEqual(['lat', 'lng']);
      expect(validParameter(operationId, 'point', { lat: 29.3349, lng: 48.0878 })).toBe(true);
      expect(validParameter(operationId, 'point', { lat: 29.3349 })).toBe(false);
      expect(validParameter(operationId, 'point', { lng: 48.0878 })).toBe(false);
      expect(validParameter(operationId, 'point', { lat: 91, lng: 48 })).toBe(false);
    },
  );

  it.each(POINTED)('when %s gets lat or lng alone, then it is still a 400 naming the missing one', async (_, url) => {
    const latOnly = await get(`${url}lat=29.3349`);
    expect(latOnly.status).toBe(400);
    expect(latOnly.body.error).toMatchObject({ code: 'validation_error', param: 'lng' });
    expect(latOnly.body.error.message).toBe('lng is required when lat is given.');
    const lngOnly = await get(`${url}lng=48.0878`);
    expect(lngOnly.status).toBe(400);
    expect(lngOnly.body.error).toMatchObject({ code: 'validation_error', param: 'lat' });
    expect((await get(`${url}lat=29.3349&lng=48.0878`)).status).toBe(200);
    expect((await get(url.replace(/[?&]$/, ''))).status).toBe(200);
  });

  it('when the delivery quote is documented, then lat and lng are two required parameters, and one alone is a 400', async () => {
    for (const name of ['lat', 'lng']) expect(parameter('getDeliveryQuote', name).parameter.required).toBe(true);
    const res = await get('/v1/stores/kw-shawarma-reem/delivery-quote?lat=29.3349');
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('lng');
  });
});

describe('search text in the partner document', () => {
  it.each([
    ['shawarma', true],
    ['  ab  ', true],
    [' a ', false],
    ['a'.repeat(80), true],
    [`   ${'a'.repeat(80)}   `, true],
    ['a'.repeat(81), false],
  ])('when q is %j, then the document says valid: %s, and the service agrees', async (value, valid) => {
    expect(validParameter('search', 'q', value)).toBe(valid);
    expect((await get(`/v1/search?q=${encodeURIComponent(value)}`)).status).toBe(valid ? 200 : 400);
  });
});

describe('POST /v1/promo-codes/validate in the partner document', () => {
  const validate = (body: Record<string, unknown>) =>
    t.http.post('/v1/promo-codes/validate').set(bearer(p.live)).send(body);
  const base = { code: 'REEM500', store_id: 'kw-shawarma-reem' };
  const items = [{ item_id: 'family-platter', quantity: 1 }];

  it.each([
    ['subtotal alone', { ...base, subtotal: 5 }, true],
    ['items alone', { ...base, items }, true],
    ['neither', base, false],
    ['both', { ...base, subtotal: 5, items }, false],
    ['a blank code', { ...base, code: '   ', subtotal: 5 }, false],
    ['a code of 32 characters padded with spaces', { ...base, code: `  ${'A'.repeat(32)}  `, subtotal: 5 }, true],
    ['a code of 33 characters', { ...base, code: 'A'.repeat(33), subtotal: 5 }, false],
  ])('when the body has %s, then the document and the service agree', async (_, body, valid) => {
    expect(validPromoRequest(body)).toBe(valid);
    const res = await validate(body);
    expect(res.status).toBe(valid ? 200 : 400);
    if (!valid) expect(res.body.error.code).toBe('validation_error');
  });

  it('when neither or both are sent, then the 400 says to send exactly one', async () => {
    const both = await validate({ ...base, subtotal: 5, items });
    expect(both.body.error).toMatchObject({
      param: 'items',
      message: 'items must not be sent together with subtotal (send exactly one of them).',
    });
    const neither = await validate(base);
    expect(neither.body.error).toMatchObject({
      param: 'subtotal',
      message: 'subtotal is required when items is not sent (send exactly one of them).',
    });
  });
});

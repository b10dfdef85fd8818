import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestPartner, type TestService } from '../support/service.js';
import { startCatalogService } from './catalog-fixture.js';

let t: TestService;
let ordersOnly: TestPartner;
let catalogOnly: TestPartner;

beforeAll(async () => {
  ({ t } = await startCatalogService());
  ordersOnly = await t.partner({ name: 'Orders only', scopes: ['orders:read'] });
  catalogOnly = await t.partner({ name: 'Catalog only', scopes: ['catalog:read'] });
});
afterAll(() => t.close());

const READS = [
  '/v1/stores',
  '/v1/stores/kw-shawarma-reem',
  '/v1/stores/kw-shawarma-reem/menu',
  '/v1/stores/kw-shawarma-reem/items/chicken-shawarma',
  '/v1/stores/kw-shawarma-reem/delivery-quote?lat=29.3&lng=48',
  '/v1/stores/kw-shawarma-reem/offers',
  '/v1/search?q=burger',
  '/v1/categories',
  '/v1/offers',
];
const promo = { code: 'REEM500', store_id: 'kw-shawarma-reem', subtotal: 5 };

describe('catalog scopes', () => {
  it.each(READS)('when a key with only orders:read calls GET %s, then 403 insufficient_scope', async (url) => {
    const res = await t.http.get(url).set(bearer(ordersOnly.live));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });

  it('when a key with only orders:read validates a promo code, then 403 insufficient_scope', async () => {
    const res = await t.http.post('/v1/promo-codes/validate').set(bearer(ordersOnly.live)).send(promo);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });

  it('when a key with catalog:read but not offers:read calls GET /offers or the promo check, then 403; store offers need only catalog:read', async () => {
    const offers = await t.http.get('/v1/offers').set(bearer(catalogOnly.live));
    expect(offers.status).toBe(403);
    expect(offers.body.error).toMatchObject({
      code: 'insufficient_scope',
      message: expect.stringContaining('offers:read'),
    });
    const check = await t.http.post('/v1/promo-codes/validate').set(bearer(catalogOnly.sandbox)).send(promo);
    expect(check.status).toBe(403);
    expect(check.body.error.message).toContain('promo_codes:validate');
    for (const url of READS.filter((u) => u !== '/v1/offers')) {
      expect((await t.http.get(url).set(bearer(catalogOnly.live))).status, url).toBe(200);
    }
  });

  it('when no key is sent, then 401 missing_api_key', async () => {
    const res = await t.http.get('/v1/stores');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('missing_api_key');
  });
});

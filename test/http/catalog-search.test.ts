import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { DUBAI_MARINA, SALMIYA, startCatalogService } from './catalog-fixture.js';

let t: TestService;
let get: (url: string) => ReturnType<TestService['http']['get']>;

beforeAll(async () => {
  ({ t, get } = await startCatalogService());
});
afterAll(() => t.close());

type Hit = { id: string; store?: { id: string } };
const search = async (query: string) => {
  const res = await get(`/v1/search?${query}`);
  expect(res.status).toBe(200);
  return {
    stores: res.body.data.stores.map((s: Hit) => s.id),
    items: res.body.data.items.map((i: Hit) => `${i.store!.id}/${i.id}`),
  };
};

describe('GET /v1/search: parameter bounds', () => {
  it.each([
    ['', 'q'],
    ['q=a', 'q'],
    ['q=%20a%20', 'q'],
    [`q=${'a'.repeat(81)}`, 'q'],
    ['q=ab&q=cd', 'q'],
    ['q=burger&limit=0', 'limit'],
    ['q=burger&limit=51', 'limit'],
    ['q=burger&limit=2.5', 'limit'],
    ['q=burger&lat=90.1&lng=48', 'lat'],
    ['q=burger&lat=29&lng=-180.1', 'lng'],
    ['q=burger&lat=29', 'lng'],
    ['q=burger&lng=48', 'lat'],
    ['q=burger&page=2', 'page'],
  ])('when the query is "%s", then 400 validation_error naming %s', async (query, param) => {
    const res = await get(`/v1/search?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param });
  });

  it.each(['q=ab', `q=${'a'.repeat(80)}`, 'q=burger&limit=1', 'q=burger&limit=50', 'q=burger&lat=-90&lng=180'])(
    'when the query is the bound %s, then 200',
    async (query) => {
      expect((await get(`/v1/search?${query}`)).status).toBe(200);
    },
  );
});

describe('GET /v1/search: results', () => {
  it('when q matches names, then exact, prefix, word-prefix and substring matches come in that order, for stores and items', async () => {
    const r = await search('q=burger');
    expect(r.stores).toEqual(['kw-burger-lab', 'kw-classic-burgers', 'kw-cheeseburger-corner']);
    expect(r.items).toEqual([
      'kw-burger-lab/burger',
      'kw-classic-burgers/burger-meal',
      'kw-classic-burgers/smash-burger',
      'kw-burger-lab/double-cheeseburger',
    ]);
  });

  it('when an item is found, then it carries the item fields and its store', async () => {
    const res = await get('/v1/search?q=chicken%20shawarma');
    const [hit] = res.body.data.items;
    expect(hit).toMatchObject({
      id: 'chicken-shawarma',
      object: 'item',
      price: 0.65,
      currency: 'KWD',
      store: { id: 'kw-shawarma-reem', name: 'Shawarma Al Reem', status: 'open' },
    });
    expect(hit.modifier_groups).toHaveLength(2);
  });

  it('when q is Arabic, then Arabic names match, with or without the article', async () => {
    const r = await search(`q=${encodeURIComponent('شاورما')}`);
    expect(r.stores).toEqual(['kw-shawarma-reem']);
    expect(r.items).toEqual(['kw-shawarma-reem/chicken-shawarma']);
    expect((await search(`q=${encodeURIComponent('ريم')}`)).stores).toEqual(['kw-shawarma-reem']);
    expect((await search(`q=${encodeURIComponent('البرجر')}`)).stores).toEqual(['kw-burger-lab']);
  });

  it('when q is in capitals, then case does not matter', async () => {
    expect(await search('q=BURGER')).toEqual(await search('q=burger'));
  });

  it('when limit is 1, then at most one store and one item', async () => {
    const r = await search('q=burger&limit=1');
    expect(r).toEqual({ stores: ['kw-burger-lab'], items: ['kw-burger-lab/burger'] });
  });

  it('when lat and lng are sent, then only stores delivering there and their items', async () => {
    const r = await search(`q=burger&lat=${SALMIYA.lat}&lng=${SALMIYA.lng}`);
    expect(r.stores).toEqual(['kw-burger-lab', 'kw-classic-burgers']);
    expect(r.items.every((i: string) => !i.startsWith('kw-cheeseburger-corner'))).toBe(true);
    const dubai = await search(`q=manakish&lat=${DUBAI_MARINA.lat}&lng=${DUBAI_MARINA.lng}`);
    expect(dubai.items).toEqual([
      'ae-reef-bakery/ae-reef-bakery-manakish',
      'ae-marina-grocer/ae-marina-grocer-manakish',
    ]);
    expect((await search(`q=manakish&lat=${SALMIYA.lat}&lng=${SALMIYA.lng}`)).items).toEqual([]);
  });

  it('when nothing matches, then two empty lists', async () => {
    expect(await search('q=sushi')).toEqual({ stores: [], items: [] });
  });
});

describe('GET /v1/categories', () => {
  it('when listed, then every category with id, object, names and image', async () => {
    const res = await get('/v1/categories');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: 'shawarma',
        object: 'category',
        name: 'Shawarma',
        name_ar: 'شاورما',
        image_url: 'https://images.example-cdn.com/categories/shawarma.png',
      },
      {
        id: 'burgers',
        object: 'category',
        name: 'Burgers',
        name_ar: 'برجر',
        image_url: 'https://images.example-cdn.com/categories/burgers.png',
      },
      {
        id: 'pharmacy',
        object: 'category',
        name: 'Pharmacy',
        name_ar: null,
        image_url: 'https://images.example-cdn.com/categories/pharmacy.png',
      },
    ]);
  });

  it('when a query parameter is sent, then 400 naming it', async () => {
    const res = await get('/v1/categories?lang=ar');
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('lang');
  });
});

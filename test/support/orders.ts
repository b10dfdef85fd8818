import { loadDemoCatalog } from '../../src/catalog-data/demo.js';
import type { Catalog, Store } from '../../src/domain/catalog/model.js';
import type { Http } from './http.js';
import { bearer } from './service.js';

/** A fresh copy of the shipped demo catalog. */
export function demoCatalog(): Catalog {
  return structuredClone(loadDemoCatalog());
}

/** The demo catalog with some stores changed (e.g. auto_accept off for deterministic manual flows). */
export function demoCatalogWith(patches: Record<string, Partial<Store>>): Catalog {
  const catalog = demoCatalog();
  catalog.stores = catalog.stores.map((s) => (patches[s.id] ? { ...s, ...patches[s.id] } : s));
  return catalog;
}

/** Shawarma Al Reem, Kuwait City (KWD), open around the clock; the point is ~1 km away (free delivery band). */
export const REEM = {
  store_id: 'kw-shawarma-reem',
  near: { lat: 29.3349, lng: 48.0878 },
  far: { lat: 29.0, lng: 47.5 },
};

export const ADDRESS = {
  line1: 'Block 4, Street 12, House 7',
  floor: '2',
  apartment: '5',
  area: 'Salmiya',
  location: REEM.near,
};

export function orderBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    store_id: REEM.store_id,
    fulfilment: 'delivery',
    items: [
      { item_id: 'chicken-shawarma-wrap', quantity: 2, modifier_ids: ['size-large', 'extra-toum'] },
      { item_id: 'hummus', quantity: 1 },
    ],
    customer: { name: 'Fatima Al-Sabah', phone: '+96550001234' },
    delivery_address: ADDRESS,
    payment_method: 'cash',
    reference: 'partner-ref-1',
    ...over,
  };
}

let keyCounter = 0;
export const newKey = () => `test-key-${process.pid}-${++keyCounter}-${Math.random().toString(36).slice(2, 10)}`;

export async function placeOrder(http: Http, key: string, over: Record<string, unknown> = {}) {
  return http.post('/v1/orders').set(bearer(key)).set('Idempotency-Key', newKey()).send(orderBody(over));
}

// Order requests for the bench: the same valid body as test/support/orders.ts (Shawarma Al Reem,
// Kuwait City, KWD, open around the clock), and an order walked through ~10 events.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import path from 'node:path';

export function orderBody(over = {}) {
  return {
    store_id: 'kw-shawarma-reem',
    fulfilment: 'delivery',
    items: [
      { item_id: 'chicken-shawarma-wrap', quantity: 2, modifier_ids: ['size-large', 'extra-toum'] },
      { item_id: 'hummus', quantity: 1 },
    ],
    customer: { name: 'Fatima Al-Sabah', phone: '+96550001234' },
    delivery_address: {
      line1: 'Block 4, Street 12, House 7',
      floor: '2',
      apartment: '5',
      area: 'Salmiya',
      location: { lat: 29.3349, lng: 48.0878 },
    },
    payment_method: 'cash',
    reference: 'bench',
    ...over,
  };
}

export const bearer = (key) => ({ authorization: `Bearer ${key}` });

/** autocannon setupRequest: a fresh Idempotency-Key on every request (unique-key creation). */
export function freshKey(req) {
  return { ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } };
}

/** POST /v1/orders with the bench body and a fresh Idempotency-Key per request (autocannon). */
export const createRequest = (key) => ({
  method: 'POST',
  path: '/v1/orders',
  body: orderBody(),
  headers: { ...bearer(key), 'content-type': 'application/json' },
  setupRequest: freshKey,
});

/** The same for the open loop (open-loop.mjs): a fresh key per request. */
export function steadyRequest(key) {
  const { setupRequest: _, ...request } = createRequest(key);
  return { ...request, perRequestHeaders: () => ({ 'idempotency-key': randomUUID() }) };
}

async function call(url, method, pathname, headers, body) {
  const res = await fetch(url + pathname, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function placeOrder(url, key, idempotencyKey = randomUUID(), over = {}) {
  const res = await call(
    url,
    'POST',
    '/v1/orders',
    { ...bearer(key), 'idempotency-key': idempotencyKey },
    orderBody(over),
  );
  if (res.status !== 201) throw new Error(`placing an order answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/**
 * A live card order taken through its whole life with the operations API: placed, paid, accepted
 * (by the store's auto-accept or by the restaurant), preparing, rider assigned, ready, picked up,
 * delivered, refunded in two parts. Returns the order id and how many events its stream holds.
 */
export async function orderWithHistory(url, key, adminToken, dataDir) {
  const order = await placeOrder(url, key, randomUUID(), { payment_method: 'card' });
  const admin = { authorization: `Bearer ${adminToken}` };
  const op = async (action, body, allow = [200]) => {
    const res = await call(url, 'POST', `/internal/orders/${order.id}/${action}`, admin, body);
    if (!allow.includes(res.status))
      throw new Error(`ops ${action} answered ${res.status}: ${JSON.stringify(res.body)}`);
  };
  await op('pay', {});
  await op('accept', {}, [200, 409]); // 409: auto-accept got there first
  await op('start', {});
  await op('assign-rider', { name: 'Ali', phone: '+96550002222', vehicle: 'motorbike' });
  await op('ready', {});
  await op('pickup', {});
  await op('deliver', {});
  await op('refund', { amount: 0.5 });
  await op('refund', {});
  const db = new Database(path.join(dataDir, 'events.db'), { readonly: true, fileMustExist: true });
  try {
    const { n } = db.prepare('SELECT count(*) AS n FROM events WHERE stream_id = ?').get(`order-${order.id}`);
    return { id: order.id, events: n };
  } finally {
    db.close();
  }
}

// The peer of issue 25: the order API a TypeScript team would otherwise build, written the way an
// emmett sample writes it. emmett 0.42 (decider + DeciderCommandHandler) on emmett-sqlite's event
// store, Express 5, the order body validated with zod. Started as a child process by the bench
// (peer-scenarios.mjs startPeer); prints its port on stdout once listening, like bare-express.mjs.
//
//   env: PORT (default 0: any free port), HOST (127.0.0.1), DATA_DIR (the database is
//   DATA_DIR/events.db) or DB_FILE, PEER_API_KEY (the one accepted bearer key, default below),
//   SQLITE_SYNCHRONOUS (unset: node-sqlite3's default, FULL; NORMAL only for the memory row, where
//   it makes 100,000 orders take minutes, as for ours: it changes when a commit reaches the disk,
//   not what the process keeps in memory).
//
// Endpoints:
//   POST /v1/orders              Authorization: Bearer <key>, Idempotency-Key, the body of
//                                test/bench/orders.mjs orderBody(): 201 { data: order }
//   GET  /v1/orders/:id          aggregateStream with the decider's evolve: 200 { data: order } or 404
//   POST /v1/orders/:id/<action> pay, accept, start, assign-rider, ready, pickup, deliver, refund:
//                                one event each, appended with the stream version it was decided on
//                                (emmett's CommandHandler reads, decides, appends at that version).
//                                An order walked through all of them has 10 events, as ours does in
//                                orderWithHistory (placed, paid, accepted, preparing, rider assigned,
//                                ready, picked up, delivered, refunded twice).
//
// One connection, one writer. emmett-sqlite's pool opens a connection per store call unless given
// one: `connectionOptions: { singleton: true, connection: sqliteConnection({ fileName }) }` is its
// single-connection option (the pool then uses that ambient connection for every call and never
// closes it; the app does on exit). `singleton: true` alone is ignored for a file database. That
// connection's transactions are not safe to interleave (withTransaction keeps a nesting counter per
// connection), so every command, read-decide-append as a whole, runs through a promise queue: one
// writer at a time. Reads (GET) are not queued; on the shared connection they may see the write
// in progress before it commits. node-sqlite3 opens the database in WAL mode (emmett-sqlite runs
// `PRAGMA journal_mode = WAL`) with SQLite's default synchronous=FULL: every commit is fsynced.
//
// Idempotency, the cheap way: the order id is derived from the partner key and the
// Idempotency-Key (SHA-256, formatted as a UUID), so the key is the stream. PlaceOrder on a stream
// that already holds an order decides nothing when the request hash stored in OrderPlaced matches
// (the handler answers 200 with the order as it is, `Idempotent-Replayed: true`, as ours does) and
// is refused with 409 when it does not. Because commands run one at a time, two concurrent requests
// with the same key cannot both place the order. (emmett-sqlite 0.42.4 does not enforce
// STREAM_DOES_NOT_EXIST by itself: it treats it like "no check", so the queue is what makes this
// exact; so would expectedStreamVersion 0n, which fails the read too.)
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import express from 'express';
import { z } from 'zod';
import { DeciderCommandHandler, EmmettError, IllegalStateError, ValidationError } from '@event-driven-io/emmett';
import { getSQLiteEventStore, sqliteConnection } from '@event-driven-io/emmett-sqlite';

const API_KEY = process.env.PEER_API_KEY ?? 'peer-bench-key';
const fileName =
  process.env.DB_FILE ?? path.join(process.env.DATA_DIR ?? fs.mkdtempSync('/tmp/emmett-peer-'), 'events.db');

// ---- The order body, mirroring the service's PlaceOrderBody (src/http/schemas/order.ts) --------

const Text = (max) =>
  z
    .string()
    .regex(/^[^\p{Cc}\u2028-\u202e\u2066-\u206f\ufeff\ufff9-\ufffb]*$/u, 'must not contain control characters')
    .trim()
    .min(1)
    .max(max);
const Id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/);
const PlaceOrderBody = z
  .object({
    store_id: Id,
    fulfilment: z.enum(['delivery', 'pickup']),
    items: z
      .array(
        z
          .object({
            item_id: Id,
            quantity: z.int().min(1).max(99),
            modifier_ids: z
              .array(Id)
              .max(50)
              .refine((ids) => new Set(ids).size === ids.length, 'an option is chosen twice')
              .optional(),
          })
          .strict(),
      )
      .min(1)
      .max(50),
    customer: z
      .object({
        name: Text(100),
        phone: z.string().regex(/^\+[1-9][0-9]{6,14}$/, 'must be a phone number in international format'),
      })
      .strict(),
    delivery_address: z
      .object({
        line1: Text(200),
        floor: Text(20).optional(),
        apartment: Text(20).optional(),
        area: Text(100),
        location: z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) }).strict(),
      })
      .strict()
      .optional(),
    payment_method: z.enum(['cash', 'card']),
    reference: Text(100).optional(),
    tip: z.number().min(0).max(50).optional(),
  })
  .strict()
  .refine((b) => b.fulfilment !== 'delivery' || b.delivery_address, {
    path: ['delivery_address'],
    message: 'is required for delivery orders',
  });
const IdempotencyKey = z
  .string()
  .min(8)
  .max(64)
  .regex(/^(?![\s\S]*, )[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/);

// ---- Prices: the one store of the bench body, in fils (1 KWD = 1000 fils) ----------------------

const STORES = {
  'kw-shawarma-reem': {
    currency: 'KWD',
    deliveryFee: 500,
    items: { 'chicken-shawarma-wrap': 1250, hummus: 750, 'falafel-plate': 1500, 'mint-lemonade': 900 },
    modifiers: { 'size-large': 250, 'extra-toum': 100, 'no-pickles': 0 },
  },
};

function price(body) {
  const store = STORES[body.store_id];
  if (!store) throw new ValidationError(`unknown store ${body.store_id}`);
  const lines = body.items.map(({ item_id, quantity, modifier_ids = [] }) => {
    const base = store.items[item_id];
    if (base === undefined) throw new ValidationError(`unknown item ${item_id}`);
    let unit = base;
    for (const id of modifier_ids) {
      if (store.modifiers[id] === undefined) throw new ValidationError(`unknown option ${id}`);
      unit += store.modifiers[id];
    }
    return { item_id, quantity, modifier_ids, unit_price: unit, total: unit * quantity };
  });
  const subtotal = lines.reduce((sum, l) => sum + l.total, 0);
  const deliveryFee = body.fulfilment === 'delivery' ? store.deliveryFee : 0;
  const tip = Math.round((body.tip ?? 0) * 1000);
  return { currency: store.currency, lines, subtotal, deliveryFee, tip, total: subtotal + deliveryFee + tip };
}

// ---- The decider ----------------------------------------------------------------------------------

const initialState = () => ({ status: 'Initial' });

function evolve(state, { type, data }) {
  switch (type) {
    case 'OrderPlaced':
      return {
        status: 'placed',
        paymentStatus: data.payment_method === 'card' ? 'pending' : 'cash',
        refunded: 0,
        ...data,
      };
    case 'OrderPaid':
      return { ...state, paymentStatus: 'paid', updated_at: data.at };
    case 'OrderAccepted':
      return { ...state, status: 'accepted', updated_at: data.at };
    case 'PreparationStarted':
      return { ...state, status: 'preparing', updated_at: data.at };
    case 'RiderAssigned':
      return { ...state, rider: data.rider, updated_at: data.at };
    case 'OrderReady':
      return { ...state, status: 'ready', updated_at: data.at };
    case 'OrderPickedUp':
      return { ...state, status: 'picked_up', updated_at: data.at };
    case 'OrderDelivered':
      return { ...state, status: 'delivered', updated_at: data.at };
    case 'OrderRefunded': {
      const refunded = state.refunded + data.amount;
      return {
        ...state,
        refunded,
        paymentStatus: refunded >= state.totals.total ? 'refunded' : 'partially_refunded',
        updated_at: data.at,
      };
    }
    default:
      return state;
  }
}

const TRANSITIONS = {
  AcceptOrder: { from: ['placed'], event: 'OrderAccepted' },
  StartPreparation: { from: ['accepted'], event: 'PreparationStarted' },
  MarkReady: { from: ['preparing'], event: 'OrderReady' },
  PickUp: { from: ['ready'], event: 'OrderPickedUp' },
  Deliver: { from: ['picked_up'], event: 'OrderDelivered' },
};

function decide(command, state) {
  const { type, data } = command;
  if (type === 'PlaceOrder') {
    if (state.status === 'Initial') return { type: 'OrderPlaced', data: data.order };
    // Same key: the same request is a replay (nothing to append), another one a conflict.
    if (state.request_hash === data.order.request_hash) return [];
    throw new IllegalStateError('idempotency_conflict: this Idempotency-Key was used with another body');
  }
  if (state.status === 'Initial') throw new EmmettError({ errorCode: 404, message: 'order not found' });
  const at = data.at;
  if (type === 'PayOrder') {
    if (state.paymentStatus !== 'pending') throw new IllegalStateError(`payment is ${state.paymentStatus}`);
    return { type: 'OrderPaid', data: { at } };
  }
  if (type === 'AssignRider') {
    if (!['accepted', 'preparing', 'ready'].includes(state.status))
      throw new IllegalStateError(`cannot assign a rider to a ${state.status} order`);
    return { type: 'RiderAssigned', data: { rider: data.rider, at } };
  }
  if (type === 'RefundOrder') {
    if (!['paid', 'partially_refunded'].includes(state.paymentStatus))
      throw new IllegalStateError(`cannot refund a payment that is ${state.paymentStatus}`);
    const left = state.totals.total - state.refunded;
    const amount = data.amount === undefined ? left : Math.round(data.amount * 1000);
    if (amount <= 0 || amount > left) throw new ValidationError(`refund must be between 0 and ${left / 1000}`);
    return { type: 'OrderRefunded', data: { amount, at } };
  }
  const transition = TRANSITIONS[type];
  if (!transition) throw new ValidationError(`unknown command ${type}`);
  if (!transition.from.includes(state.status))
    throw new IllegalStateError(`cannot ${type} an order that is ${state.status}`);
  return { type: transition.event, data: { at } };
}

const handle = DeciderCommandHandler({
  decide,
  evolve,
  initialState,
  mapToStreamId: (id) => `order-${id}`,
});

// ---- The store: one connection, one writer ---------------------------------------------------------

const connection = sqliteConnection({ fileName });
const eventStore = getSQLiteEventStore({ fileName, connectionOptions: { singleton: true, connection } });
const synchronous = process.env.SQLITE_SYNCHRONOUS;
if (synchronous) {
  if (!['FULL', 'NORMAL'].includes(synchronous)) throw new Error('SQLITE_SYNCHRONOUS is FULL or NORMAL');
  await connection.command(`PRAGMA synchronous = ${synchronous}`);
}
await eventStore.schema.migrate();

let tail = Promise.resolve();
/** Runs `fn` after every command queued before it has finished: one writer at a time. */
function oneWriter(fn) {
  const run = tail.then(fn);
  tail = run.catch(() => {});
  return run;
}

// ---- HTTP -------------------------------------------------------------------------------------------

const dec = (fils) => Math.round(fils) / 1000;

function toOrder(id, s) {
  return {
    id,
    object: 'order',
    reference: s.reference ?? '',
    status: s.status,
    payment_status: s.paymentStatus,
    fulfilment: s.fulfilment,
    store_id: s.store_id,
    items: s.totals.lines.map((l) => ({ ...l, unit_price: dec(l.unit_price), total: dec(l.total) })),
    customer: s.customer,
    delivery_address: s.delivery_address ?? null,
    payment_method: s.payment_method,
    rider: s.rider ?? null,
    currency: s.totals.currency,
    totals: {
      subtotal: dec(s.totals.subtotal),
      delivery_fee: dec(s.totals.deliveryFee),
      tip: dec(s.totals.tip),
      total: dec(s.totals.total),
      refunded: dec(s.refunded),
    },
    created_at: s.created_at,
    updated_at: s.updated_at ?? s.created_at,
  };
}

const app = express();
app.disable('x-powered-by');
app.use(express.json({ limit: '100kb' }));
app.use((req, res, next) => {
  if (req.get('authorization') !== `Bearer ${API_KEY}`) {
    res.status(401).json({ error: { code: 'unauthorized', message: 'a valid bearer key is required' } });
    return;
  }
  next();
});

const keyToId = (key) => {
  const h = createHash('sha256').update(`${API_KEY}\n${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

app.post('/v1/orders', async (req, res) => {
  const key = IdempotencyKey.safeParse(req.get('idempotency-key'));
  if (!key.success)
    throw new ValidationError(
      'the Idempotency-Key header must be 8 to 64 visible ASCII characters (spaces allowed between them)',
    );
  const parsed = PlaceOrderBody.safeParse(req.body);
  if (!parsed.success) {
    res.status(400).json({ error: { code: 'validation_error', issues: parsed.error.issues } });
    return;
  }
  const body = parsed.data;
  const request_hash = createHash('sha256').update(JSON.stringify(req.body)).digest('base64url');
  const id = keyToId(key.data);
  const order = {
    ...body,
    id,
    request_hash,
    totals: price(body),
    created_at: new Date().toISOString(),
  };
  const { newEvents, newState } = await oneWriter(() =>
    handle(eventStore, id, { type: 'PlaceOrder', data: { order } }),
  );
  if (newEvents.length === 0) res.status(200).set('Idempotent-Replayed', 'true');
  else res.status(201);
  res.json({ data: toOrder(id, newState) });
});

app.get('/v1/orders/:id', async (req, res) => {
  const { state, streamExists } = await eventStore.aggregateStream(`order-${req.params.id}`, { evolve, initialState });
  if (!streamExists) {
    res.status(404).json({ error: { code: 'not_found', message: 'order not found' } });
    return;
  }
  res.json({ data: toOrder(req.params.id, state) });
});

const Rider = z.object({ name: Text(100), phone: z.string().max(32), vehicle: Text(40).optional() }).strict();
const Refund = z.object({ amount: z.number().positive().optional() }).strict();
const ACTIONS = {
  pay: () => ({ type: 'PayOrder' }),
  accept: () => ({ type: 'AcceptOrder' }),
  start: () => ({ type: 'StartPreparation' }),
  'assign-rider': (body) => ({ type: 'AssignRider', data: { rider: Rider.parse(body) } }),
  ready: () => ({ type: 'MarkReady' }),
  pickup: () => ({ type: 'PickUp' }),
  deliver: () => ({ type: 'Deliver' }),
  refund: (body) => ({ type: 'RefundOrder', data: Refund.parse(body ?? {}) }),
};

app.post('/v1/orders/:id/:action', async (req, res) => {
  const toCommand = ACTIONS[req.params.action];
  if (!toCommand) {
    res.status(404).json({ error: { code: 'not_found', message: 'no such action' } });
    return;
  }
  const parsed = (() => {
    try {
      return toCommand(req.body);
    } catch (error) {
      throw new ValidationError(error instanceof z.ZodError ? z.prettifyError(error) : String(error));
    }
  })();
  const command = { type: parsed.type, data: { ...parsed.data, at: new Date().toISOString() } };
  const { newState } = await oneWriter(() => handle(eventStore, req.params.id, command));
  res.json({ data: toOrder(req.params.id, newState) });
});

// emmett's errors carry an HTTP-like errorCode (400, 403 illegal state, 404, 412 version conflict).
app.use((error, req, res, _next) => {
  const code = EmmettError.isInstanceOf(error) ? error.errorCode : (error.status ?? 500);
  const status = code === EmmettError.Codes.IllegalStateError ? 409 : code;
  if (status >= 500) console.error(error);
  res.status(status).json({ error: { code: status, message: error.message } });
});

const server = http.createServer(app);
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () =>
  process.stdout.write(`${server.address().port}\n`),
);
process.on('SIGTERM', () =>
  server.close(() => {
    connection.close();
    process.exit(0);
  }),
);

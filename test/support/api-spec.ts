import type { Response, Test } from 'supertest';
import { expect } from 'vitest';
import { eventMetadata } from '../../src/application/event-metadata.js';
import type { Environment } from '../../src/domain/environment.js';
import {
  orderStream,
  type AcceptedBy,
  type CancelledBy,
  type OrderEvent,
  type OrderPlacedData,
  type Rider,
} from '../../src/domain/order/events.js';
import type { EventMetadata } from '../../src/ports/event-store.js';
import { newId } from '../../src/shared/ids.js';
import type { Http } from './http.js';
import { ADDRESS, REEM } from './orders.js';
import type { TestService } from './service.js';

/**
 * Given/when/then through the HTTP API, in the shape of emmett's `ApiSpecification`
 * (emmett-expressjs): given events already in streams, when a request, then a response and the
 * events the request appended.
 *
 *   const given = ApiSpecification.for(() => t);
 *   const order = placedOrder(p.id, 'sandbox');
 *   await given(existingOrder(order, orderEvents.accepted()))
 *     .when((http) => http.post(`/v1/orders/${order.order_id}/cancel`).set(bearer(p.sandbox)).send({}))
 *     .then([
 *       expectResponse(200, { body: { data: { status: 'cancelled' } } }),
 *       expectNewEvents(orderStream(order.order_id), [{ type: 'OrderCancelled', data: { by: 'partner', reason: null, at } }]),
 *     ]);
 *
 * - `given` appends each stream's events straight to the service's event store (each stream must
 *   be new), then waits until every read model has applied them, through the service's own
 *   read-your-writes wait, so a request that reads a read model sees them.
 * - `then` checks the response, then the events appended to each stream of `given` or of an
 *   `expectNewEvents` after the given ones: exactly the expected `{ type, data }` in order (deep
 *   equality; asymmetric matchers allowed), and none in a given stream that no `expectNewEvents`
 *   names. It returns the response for further checks.
 * - The service runs its background work as usual: seed live orders only at stores that do not
 *   auto-accept, or auto-accept appends OrderAccepted while the test looks.
 */
export const ApiSpecification = {
  for(service: () => TestService) {
    return (...given: TestStream[]) => ({
      when(request: (http: Http) => Test) {
        return {
          then: (asserts: ApiAssert | ApiAssert[]): Promise<Response> =>
            run(service(), given, request, [asserts].flat()),
        };
      },
    });
  },
};

export interface TestEvent {
  type: string;
  data: object;
  metadata?: EventMetadata;
}
export type TestStream = { streamId: string; events: TestEvent[] };
export type ResponseAssert = (response: Response) => void;
export type NewEventsAssert = { streamId: string; newEvents: Array<{ type: string; data: unknown }> };
export type ApiAssert = ResponseAssert | NewEventsAssert;

/** Events of any stream, as stored (metadata `{}` unless given). */
export const existingStream = (streamId: string, events: TestEvent[]): TestStream => ({ streamId, events });

/** An order's stream: its OrderPlaced, then `later`, each with the metadata the service writes. */
export function existingOrder(placed: OrderPlacedData, ...later: OrderEvent[]): TestStream {
  const events: OrderEvent[] = [{ type: 'OrderPlaced', data: placed }, ...later];
  return existingStream(
    orderStream(placed.order_id),
    events.map((e) => ({
      ...e,
      metadata: eventMetadata({ actor: 'system', cause: {}, owner: placed, at: e.data.at }),
    })),
  );
}

/** The status, and the body matched as `toMatchObject` does (fields not named are not checked). */
export const expectResponse =
  (status: number, options: { body?: object } = {}): ResponseAssert =>
  (response) => {
    expect(response.status, `status of ${response.text.slice(0, 500)}`).toBe(status);
    if (options.body !== undefined) expect(response.body).toMatchObject(options.body);
  };

/** An error answer: the status and the fields of the error envelope named (code, param, ...). */
export const expectError = (status: number, error: Record<string, unknown> = {}): ResponseAssert =>
  expectResponse(status, { body: { error } });

export const expectNewEvents = (streamId: string, newEvents: NewEventsAssert['newEvents']): NewEventsAssert => ({
  streamId,
  newEvents,
});

async function run(
  t: TestService,
  given: TestStream[],
  request: (http: Http) => Test,
  asserts: ApiAssert[],
): Promise<Response> {
  const events = t.stores.events;
  for (const { streamId, events: stream } of given) {
    await events.append(
      streamId,
      stream.map((e) => ({ type: e.type, data: e.data as Record<string, unknown>, metadata: e.metadata ?? {} })),
      { expectedRevision: 'no_stream' },
    );
  }
  const { readModels } = t.service.services;
  for (const name of readModels.runners.keys()) {
    // Generous: the bound only catches a hang (a read waits 2 s at most, then answers anyway).
    expect(await readModels.catchUp(name, 30_000), `read model ${name} caught up with the given events`).toBe(true);
  }

  const expected = new Map<string, NewEventsAssert['newEvents']>();
  for (const a of asserts)
    if (typeof a !== 'function') expected.set(a.streamId, [...(expected.get(a.streamId) ?? []), ...a.newEvents]);
  const streams = [...new Set([...given.map((s) => s.streamId), ...expected.keys()])];
  const before = new Map<string, number>();
  for (const id of streams)
    before.set(id, (await events.readStream(id, { backwards: true, maxCount: 1 }))[0]?.revision ?? -1);

  const response = await request(t.http);
  for (const a of asserts) if (typeof a === 'function') a(response);
  for (const id of streams) {
    const appended = await events.readStream(id, { fromRevision: before.get(id)! + 1 });
    expect(
      appended.map((e) => ({ type: e.type, data: e.data })),
      `events appended to ${id}`,
    ).toEqual(expected.get(id) ?? []);
  }
  return response;
}

/** When given events happened by default: before the test clock's default start (12:00). */
export const SEEDED_AT = '2026-11-21T11:00:00.000Z';

/**
 * An OrderPlaced as the service records `orderBody()` (test/support/orders.ts) at Shawarma Al Reem
 * (KWD; the store's 20% offer), for a partner and environment, with a fresh order id.
 */
export function placedOrder(
  partnerId: string,
  environment: Environment,
  over: Partial<OrderPlacedData> = {},
): OrderPlacedData {
  const at = over.at ?? SEEDED_AT;
  return {
    order_id: newId(environment === 'sandbox' ? 'sbx' : 'ord'),
    environment,
    partner_id: partnerId,
    reference: 'partner-ref-1',
    order_number: 'SPC-4QX',
    store: { id: REEM.store_id, name: 'Shawarma Al Reem' },
    currency: 'KWD',
    fulfilment: 'delivery',
    lines: [
      {
        item_id: 'chicken-shawarma-wrap',
        name: 'Chicken Shawarma Wrap',
        quantity: 2,
        unit_price: 700,
        options: [
          { id: 'size-large', group_id: 'size', name: 'Large', price: 300 },
          { id: 'extra-toum', group_id: 'extras', name: 'Extra garlic toum', price: 100 },
        ],
        line_total: 2200,
      },
      { item_id: 'hummus', name: 'Hummus', quantity: 1, unit_price: 700, options: [], line_total: 700 },
    ],
    customer: { name: 'Fatima Al-Sabah', phone: '+96550001234' },
    delivery_address: { ...ADDRESS },
    payment_method: 'cash',
    pricing: { subtotal: 2900, delivery_fee: 0, tip: 0, discount: 580, total: 2320 },
    promo_code: null,
    offer_id: 'off-reem-20',
    placed_at: at,
    at,
    ...over,
  };
}

/** `placedOrder` overrides for a pickup order. */
export const PICKUP = { fulfilment: 'pickup', delivery_address: null } as const;

/** The later facts of an order (src/domain/order/events.ts), at SEEDED_AT unless told. */
export const orderEvents = {
  accepted: (by: AcceptedBy = 'restaurant', at = SEEDED_AT): OrderEvent => ({
    type: 'OrderAccepted',
    data: { by, at },
  }),
  preparationStarted: (at = SEEDED_AT): OrderEvent => ({ type: 'OrderPreparationStarted', data: { at } }),
  packed: (at = SEEDED_AT): OrderEvent => ({ type: 'OrderPacked', data: { at } }),
  riderAssigned: (rider: Rider, at = SEEDED_AT): OrderEvent => ({ type: 'RiderAssigned', data: { rider, at } }),
  pickedUp: (at = SEEDED_AT): OrderEvent => ({ type: 'OrderPickedUp', data: { at } }),
  delivered: (at = SEEDED_AT): OrderEvent => ({ type: 'OrderDelivered', data: { at } }),
  collected: (at = SEEDED_AT): OrderEvent => ({ type: 'OrderCollected', data: { at } }),
  cancelled: (by: CancelledBy, reason: string | null = null, at = SEEDED_AT): OrderEvent => ({
    type: 'OrderCancelled',
    data: { by, reason, at },
  }),
  paymentSucceeded: (amount: number, at = SEEDED_AT): OrderEvent => ({
    type: 'PaymentSucceeded',
    data: { amount, provider_ref: 'pi_seeded', at },
  }),
  paymentFailed: (reason = 'card_declined', at = SEEDED_AT): OrderEvent => ({
    type: 'PaymentFailed',
    data: { reason, at },
  }),
  refunded: (amount: number, refundedTotal: number, at = SEEDED_AT): OrderEvent => ({
    type: 'OrderRefunded',
    data: { amount, refunded_total: refundedTotal, at },
  }),
};

export { orderStream };

import type { OrderEvent } from '../../src/domain/order/events.js';
import type { StoredDocument } from '../../src/ports/read-model-store.js';
import { applyEvent, type ProjectedEvent, type Projection } from '../../projections/projection.js';

/** Order events as the log would hold them: stream `order-<id>`, revisions from 0, ids unique per test. */
export function recorded(events: readonly OrderEvent[], orderId = 'sbx_ord_1', firstPosition = 1): ProjectedEvent[] {
  return events.map((e, i) => ({
    id: `evt-${orderId}-${i}-${e.type}-${e.data.at}`,
    streamId: `order-${orderId}`,
    type: e.type,
    revision: i,
    position: BigInt(firstPosition + i),
    data: e.data as unknown as Record<string, unknown>,
    metadata: { actor: 'system' },
  }));
}

/** A rider position event (`rider-<orderId>` stream). */
export function position(
  revision: number,
  at: string,
  lat = 29.33,
  lng = 48.07,
  orderId = 'sbx_ord_1',
): ProjectedEvent {
  return {
    id: `pos-${orderId}-${revision}-${at}`,
    streamId: `rider-${orderId}`,
    type: 'RiderLocationUpdated',
    revision,
    position: BigInt(1000 + revision),
    data: { order_id: orderId, lat, lng, at },
    metadata: { actor: 'rider' },
  };
}

/** Applies events one after the other as a runner would; an event that changes nothing keeps the document. */
export function project<D>(
  projection: Projection<D>,
  events: readonly ProjectedEvent[],
  start: StoredDocument<D> | null = null,
): StoredDocument<D> | null {
  return events.reduce<StoredDocument<D> | null>((doc, e) => applyEvent(projection, doc, e) ?? doc, start);
}

/** Deep-freezes a value, so a test fails if a projection mutates its input. */
export function frozen<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) frozen(v);
  }
  return value;
}

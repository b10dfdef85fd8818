import type { OrderEvent, OrderPlacedData, Rider } from './events.js';
import {
  orderMachine,
  statusOf,
  type Cancellation,
  type OrderSnapshot,
  type OrderStatus,
  type PaymentStatus,
} from './machine.js';
import { INITIAL_SNAPSHOT, nextSnapshot } from './step.js';

/** The current order: everything OrderPlaced said, plus what happened since. */
export interface OrderView extends Omit<OrderPlacedData, 'at'> {
  status: OrderStatus;
  payment_status: PaymentStatus;
  rider: Rider | null;
  refunded_total: number;
  cancellation: Cancellation | null;
  created_at: string;
  /** `at` of the last event. */
  updated_at: string;
  /** Number of events in the stream (the stream revision is version - 1). */
  version: number;
}

/** The folded stream: the machine snapshot (for decisions) and the view (for answers). */
export interface OrderState {
  snapshot: OrderSnapshot;
  order: OrderView | null;
}

/** A stored history the machine does not accept: corrupt data or an incompatible machine change. */
export class OrderHistoryError extends Error {
  override readonly name = 'OrderHistoryError';
}

export function initialState(): OrderState {
  return { snapshot: INITIAL_SNAPSHOT, order: null };
}

export function evolve(state: OrderState, event: OrderEvent): OrderState {
  if (!state.snapshot.can(event)) {
    const at = state.order ? `status ${state.order.status}` : 'an unplaced order';
    throw new OrderHistoryError(`stored event ${event.type} is not accepted in ${at}`);
  }
  const snapshot = nextSnapshot(state.snapshot, event);
  return { snapshot, order: viewOf(state.order, snapshot, event) };
}

export function rehydrate(events: readonly OrderEvent[]): OrderState {
  return events.reduce(evolve, initialState());
}

function viewOf(previous: OrderView | null, snapshot: OrderSnapshot, event: OrderEvent): OrderView {
  const status = statusOf(snapshot);
  const { payment_status, rider, refunded_total, cancellation } = snapshot.context;
  const base = event.type === 'OrderPlaced' ? placedFields(event.data) : previous;
  // The machine accepts nothing but OrderPlaced before placement, so both are set from here on.
  if (!base || !status || !payment_status) throw new OrderHistoryError(`${event.type} before OrderPlaced`);
  return {
    ...base,
    status,
    payment_status,
    rider,
    refunded_total,
    cancellation,
    updated_at: event.data.at,
    version: (previous?.version ?? 0) + 1,
  };
}

function placedFields(data: OrderPlacedData): Omit<OrderPlacedData, 'at'> & { created_at: string } {
  const { at: _at, ...placed } = data;
  return { ...placed, created_at: data.placed_at };
}

/**
 * The state again from a stored view, without the events: read models keep only the view, and
 * this lets them fold the next event through the same machine (resolveState is pure).
 */
export function stateFromView(view: OrderView): OrderState {
  const snapshot = orderMachine.resolveState({
    value: view.status,
    context: {
      fulfilment: view.fulfilment,
      payment_method: view.payment_method,
      payment_status: view.payment_status,
      currency: view.currency,
      total: view.pricing.total,
      refunded_total: view.refunded_total,
      rider: view.rider,
      cancellation: view.cancellation,
    },
  });
  return { snapshot, order: view };
}

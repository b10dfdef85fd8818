import { orderStream, type OrderEvent } from '../../domain/order/events.js';
import { foldView, type OrderView } from '../../domain/order/state.js';
import type { EventStore, RecordedEvent } from '../../ports/event-store.js';

export interface HistoryEntry {
  revision: number;
  position: string;
  at: string;
  type: string;
  actor: string | null;
  /** The order's status after this event, folded by the order machine; null if the fold failed here. */
  status_after: string | null;
  payment_status_after: string | null;
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
  /** Why the machine refused this event (a corrupt or incompatible history). */
  error?: string;
}

/** One event of a replay and the whole order as it was after it (null once the machine refused one). */
export interface HistoryStep {
  entry: HistoryEntry;
  order: OrderView | null;
}

type StoredOrderEvent = Pick<RecordedEvent, 'revision' | 'position' | 'type' | 'data' | 'metadata' | 'recordedAt'>;

/**
 * Replays a stored order stream one event at a time through the machine's table (foldView), as the
 * read models replay it; after a refused event the status is unknown.
 */
export function replayHistory(events: StoredOrderEvent[]): HistoryStep[] {
  let view: OrderView | null = null;
  let refused = false;
  return events.map((e) => {
    const entry: HistoryEntry = {
      revision: e.revision,
      position: e.position.toString(),
      at: typeof e.data.at === 'string' ? e.data.at : e.recordedAt.toISOString(),
      type: e.type,
      actor: typeof e.metadata.actor === 'string' ? e.metadata.actor : null,
      status_after: null,
      payment_status_after: null,
      metadata: e.metadata,
      data: e.data,
    };
    if (!refused) {
      try {
        view = foldView(view, [{ type: e.type, data: e.data } as OrderEvent]);
        entry.status_after = view.status;
        entry.payment_status_after = view.payment_status;
      } catch (err) {
        entry.error = (err as Error).message;
        refused = true;
      }
    } else entry.error = 'an earlier event was refused';
    return { entry, order: refused ? null : view };
  });
}

/** The history as `orders history` prints it: each event with the status after it. */
export function foldHistory(events: StoredOrderEvent[]): HistoryEntry[] {
  return replayHistory(events).map((s) => s.entry);
}

/** An order's stream replayed; empty when there is no such order. */
export async function readOrderHistory(events: EventStore, orderId: string): Promise<HistoryStep[]> {
  return replayHistory(await events.readStream(orderStream(orderId)));
}

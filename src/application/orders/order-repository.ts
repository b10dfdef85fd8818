import { WrongExpectedRevisionError, type EventStore } from '../../ports/event-store.js';
import type { OrderEvent } from '../../domain/order/events.js';
import { evolve, rehydrate, type OrderState } from '../../domain/order/state.js';
import { eventMetadata, type CommandContext } from './context.js';

export const orderStream = (orderId: string): string => `order-${orderId}`;

export interface LoadedOrder {
  state: OrderState;
  /** Revision of the last event, or 'no_stream'. */
  revision: number | 'no_stream';
}

export interface HandledCommand {
  state: OrderState;
  events: OrderEvent[];
  /** Global position of the last appended event (read-your-writes waits on it). */
  position: bigint;
}

const MAX_ATTEMPTS = 10;

/** Order streams: read + fold, and decide + append with the revision that was read. */
export class OrderRepository {
  constructor(private readonly store: EventStore) {}

  async load(orderId: string): Promise<LoadedOrder> {
    const recorded = await this.store.readStream(orderStream(orderId));
    const events = recorded.map((e) => ({ type: e.type, data: e.data }) as OrderEvent);
    return { state: rehydrate(events), revision: recorded.length ? recorded[recorded.length - 1]!.revision : 'no_stream' };
  }

  /**
   * Runs `decide` on the current state and appends what it returns, expecting the revision it read.
   * A concurrent writer makes the append fail; the command is then decided again on a fresh read,
   * so two commands never both win on the same revision and no update is lost.
   */
  async handle(
    orderId: string,
    ctx: CommandContext,
    at: () => string,
    decide: (state: OrderState, at: string) => OrderEvent[],
  ): Promise<HandledCommand> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(orderId);
      const now = at();
      const events = decide(state, now);
      if (events.length === 0) return { state, events, position: 0n };
      const owner = state.order ?? placedOwner(events);
      const result = await this.append(orderId, events, revision, ctx, owner, now).catch((err: unknown) => {
        if (err instanceof WrongExpectedRevisionError && attempt < MAX_ATTEMPTS) return null;
        throw err;
      });
      if (!result) continue;
      return { state: events.reduce(evolve, state), events, position: result.position };
    }
  }

  private append(
    orderId: string,
    events: OrderEvent[],
    revision: number | 'no_stream',
    ctx: CommandContext,
    owner: { partner_id: string; environment: 'live' | 'sandbox' },
    at: string,
  ) {
    const metadata = eventMetadata(ctx, owner, at);
    return this.store.append(
      orderStream(orderId),
      events.map((e) => ({ type: e.type, data: e.data as unknown as Record<string, unknown>, metadata })),
      { expectedRevision: revision },
    );
  }
}

function placedOwner(events: OrderEvent[]) {
  const placed = events.find((e) => e.type === 'OrderPlaced');
  if (!placed || placed.type !== 'OrderPlaced') throw new Error('a command on a missing order must place it');
  return { partner_id: placed.data.partner_id, environment: placed.data.environment };
}

import { LRUCache } from 'lru-cache';
import type { AppendOptions, EventStore, RecordedEvent } from '../../ports/event-store.js';
import { orderStream, type OrderEvent } from '../../domain/order/events.js';
import { evolve, fold, foldView, initialState, type OrderState } from '../../domain/order/state.js';
import { handleCommand } from '../command-handler.js';
import { eventMetadata } from '../event-metadata.js';
import { orderWebhookTypes, type OrderWebhookType } from '../../domain/webhook/envelope.js';
import type { CommandContext } from './context.js';
import { update } from '../../shared/objects.js';

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

const NO_ORDER: LoadedOrder = Object.freeze({ state: initialState(), revision: 'no_stream' });

/**
 * Folded orders kept per repository (per process) by default: about 2 KB each (0.5 MB of heap), the
 * last half second at 500 orders/s; auto-accept loads an order within milliseconds of placing it.
 */
export const DEFAULT_CACHED_ORDERS = 250;

/** The order decider's fold (state.ts), for the command handler. */
const ORDERS = { initialState, evolve };

/** Order streams: read + fold, and decide + append with the revision that was read. */
export class OrderRepository {
  private readonly folded: FoldedOrders;

  /** `cachedOrders`: how many folded orders to keep (least recently used go first); 0 keeps none. */
  constructor(
    private readonly store: EventStore,
    options: { cachedOrders?: number } = {},
  ) {
    this.folded = new FoldedOrders(options.cachedOrders ?? DEFAULT_CACHED_ORDERS);
  }

  /**
   * The order as its stream says now. A folded state kept from an earlier load is only a starting
   * point: the stream is always read after that state's revision, so appends made by any writer
   * (another process included) are folded in before answering. Nothing else invalidates it: an
   * order stream only grows, and the fold of a prefix never changes.
   */
  async load(orderId: string): Promise<LoadedOrder> {
    const stream = orderStream(orderId);
    const cached = this.folded.get(orderId);
    if (cached) {
      const tail = await this.store.readStream(stream, { fromRevision: cached.revision + 1 });
      if (tail.length === 0) return cached;
      // A tail that does not start right after the cached revision cannot be folded onto it.
      if (tail[0]!.revision === cached.revision + 1) return this.keep(orderId, cached.state, tail);
    }
    const recorded = await this.store.readStream(stream);
    if (recorded.length === 0) return { state: initialState(), revision: 'no_stream' };
    return this.keep(orderId, initialState(), recorded);
  }

  /**
   * Runs `decide` on the order as `load` gives it and appends what it returns, expecting the
   * revision it read; a conflict is decided again on a fresh read (handleCommand). `at` is read
   * once per decision: the time of its events.
   */
  async handle(
    orderId: string,
    ctx: CommandContext,
    at: () => string,
    decide: (state: OrderState, at: string) => OrderEvent[],
    options: { newStream?: boolean; durability?: AppendOptions['durability'] } = {},
  ): Promise<HandledCommand> {
    // The optional members last: a literal that starts with a spread costs V8 a new shape per call (src/shared/objects.ts).
    const handled = await handleCommand(this.store, orderStream(orderId), ORDERS, (state) => decide(state, at()), {
      read: () => this.load(orderId),
      metadata: (state, events) => {
        const common = eventMetadata({
          actor: ctx.actor,
          cause: ctx,
          owner: state.order ?? placedOwner(events),
          at: events[0]!.data.at,
        });
        return webhookTypesOf(state, events).map((types) => update(common, { webhook_types: types }));
      },
      ...(options.durability ? { durability: options.durability } : {}),
      // `newStream`: the caller has just made the id up, so there is nothing to read yet; if it is
      // wrong after all, the append's `no_stream` expectation fails and the next attempt reads.
      ...(options.newStream ? { from: NO_ORDER } : {}),
    });
    if (handled.position === undefined) return { state: handled.state, events: handled.events, position: 0n };
    // Kept as if loaded: the next command on this order (auto-accept, a minute later a payment)
    // then reads only what was appended after it instead of the whole stream again.
    const next = frozen(handled.state);
    this.folded.set(orderId, { state: next, revision: handled.revision as number });
    return { state: next, events: handled.events, position: handled.position };
  }

  /** Folds `recorded` onto `from` and keeps the result. */
  private keep(orderId: string, from: OrderState, recorded: RecordedEvent[]): CachedOrder {
    const state = fold(
      from,
      recorded.map((e) => ({ type: e.type, data: e.data }) as OrderEvent),
    );
    const loaded = { state: frozen(state), revision: recorded[recorded.length - 1]!.revision };
    this.folded.set(orderId, loaded);
    return loaded;
  }
}

/**
 * The webhook types each event causes, from the order right before and right after it: written on
 * the event, so the events API's read model lists an order's events without folding the order.
 */
function webhookTypesOf(state: OrderState, events: readonly OrderEvent[]): OrderWebhookType[][] {
  let before = state.order;
  return events.map((e) => {
    // Decided already: stepped through the machine's table, as the read models replay it.
    const after = foldView(before, [e]);
    const types = orderWebhookTypes(e.type, before, after);
    before = after;
    return types;
  });
}

function placedOwner(events: readonly OrderEvent[]) {
  const placed = events.find((e) => e.type === 'OrderPlaced');
  if (!placed || placed.type !== 'OrderPlaced') throw new Error('a command on a missing order must place it');
  return { partner_id: placed.data.partner_id, environment: placed.data.environment };
}

type CachedOrder = LoadedOrder & { revision: number };

/**
 * Folded orders by id, the least recently used dropped first (lru-cache). Entries are
 * frozen: every caller of `load` shares them. A concurrent load that read an older revision never
 * replaces a newer entry.
 */
class FoldedOrders {
  private readonly entries: LRUCache<string, CachedOrder> | undefined;

  constructor(capacity: number) {
    this.entries = capacity > 0 ? new LRUCache<string, CachedOrder>({ max: capacity }) : undefined;
  }

  get(orderId: string): CachedOrder | undefined {
    return this.entries?.get(orderId);
  }

  set(orderId: string, loaded: CachedOrder): void {
    const current = this.entries?.peek(orderId);
    if (current && current.revision >= loaded.revision) return;
    this.entries?.set(orderId, loaded);
  }
}

/** The state with its view deeply frozen and its snapshot (and the snapshot's context) frozen. */
function frozen(state: OrderState): OrderState {
  deepFreeze(state.order);
  Object.freeze(state.snapshot.context);
  Object.freeze(state.snapshot);
  return Object.freeze(state);
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

import {
  WrongExpectedRevisionError,
  type AppendOptions,
  type AppendResult,
  type EventMetadata,
  type EventStore,
} from '../ports/event-store.js';
import { ApiError } from '../domain/errors.js';

/**
 * One command on one stream, as emmett's CommandHandler: read the stream and fold it, decide,
 * append what was decided expecting the revision that was read, and when another writer appended
 * first, decide again on a fresh read. Every write that depends on what its stream holds goes
 * through here (orders, idempotency claims, webhook deliveries, checkout sessions), so two
 * decisions never both win on one revision and no update is lost.
 */

/** A fact as its stream stores it: the event type and its JSON data. */
export interface StreamEvent {
  type: string;
  data: object;
}

/** A stream folded, and the revision of its last event ('no_stream' before the first). */
export interface ReadStream<State> {
  state: State;
  revision: number | 'no_stream';
}

export interface Evolver<State, Event> {
  initialState(): State;
  evolve(state: State, event: Event): State;
}

export interface CommandOptions<State, Event> {
  /** The metadata of the events appended, from the state they were decided on: one for all, or one per event. */
  metadata(state: State, events: readonly Event[]): EventMetadata | EventMetadata[];
  /** The stream as the caller has just read it: the first decision is made on it without reading. */
  from?: ReadStream<State>;
  /** Reads the stream; by default every event, folded with `evolve` from `initialState()`. */
  read?(): Promise<ReadStream<State>>;
  /** How many times a conflict is decided again before it is thrown; default 9. */
  retries?: number;
  /**
   * 'return': a conflict is handed back (`conflict: true`) instead of decided again, for a caller
   * whose decision was to win a race (a claim) and that must not make it again.
   */
  onConflict?: 'retry' | 'return';
  /** As in the port; 'ordered' also answers a decision to write nothing, or a refusal, without waiting for the disk. */
  durability?: AppendOptions['durability'];
}

export interface Handled<State, Event> {
  conflict: false;
  /** The state after the events (the state decided on when there are none). */
  state: State;
  /** What was appended; none when the decision was to do nothing. */
  events: Event[];
  /** The stream's revision after the append. */
  revision: number | 'no_stream';
  /** Global position of the last appended event; undefined when nothing was appended. */
  position: bigint | undefined;
}

export interface Conflicted<State> {
  conflict: true;
  /** The state the refused decision was made on: another writer has appended since. */
  state: State;
}

export const DEFAULT_RETRIES = 9;

export function handleCommand<State, Event extends StreamEvent>(
  store: EventStore,
  streamId: string,
  evolver: Evolver<State, Event>,
  decide: (state: State) => Event[],
  options: CommandOptions<State, Event> & { onConflict: 'return' },
): Promise<Handled<State, Event> | Conflicted<State>>;
export function handleCommand<State, Event extends StreamEvent>(
  store: EventStore,
  streamId: string,
  evolver: Evolver<State, Event>,
  decide: (state: State) => Event[],
  options: CommandOptions<State, Event> & { onConflict?: 'retry' },
): Promise<Handled<State, Event>>;
export async function handleCommand<State, Event extends StreamEvent>(
  store: EventStore,
  streamId: string,
  evolver: Evolver<State, Event>,
  decide: (state: State) => Event[],
  options: CommandOptions<State, Event>,
): Promise<Handled<State, Event> | Conflicted<State>> {
  const retries = options.retries ?? DEFAULT_RETRIES;
  let known = options.from;
  for (let attempt = 0; ; attempt++) {
    const { state, revision } = known ?? (await (options.read ? options.read() : readStream(store, streamId, evolver)));
    known = undefined;
    // An answer that rests on what was read and writes nothing (a command an earlier one already
    // did, or a refusal such as "the order is cancelled") waits until that is durable, as an
    // append's answer would. A caller asking for 'ordered' takes its answer before the disk anyway.
    const readIsAnswer = options.durability !== 'ordered';
    let events: Event[];
    try {
      events = decide(state);
    } catch (err) {
      // A refusal; anything else is a fault, thrown at once.
      if (readIsAnswer && err instanceof ApiError) await store.whenDurable();
      throw err;
    }
    if (events.length === 0) {
      if (readIsAnswer) await store.whenDurable();
      return { conflict: false, state, events, revision, position: undefined };
    }
    const metadata = options.metadata(state, events);
    const appendOptions: AppendOptions = { expectedRevision: revision };
    if (options.durability) appendOptions.durability = options.durability;
    let result: AppendResult;
    try {
      result = await store.append(
        streamId,
        events.map((e, i) => ({
          type: e.type,
          data: e.data as Record<string, unknown>,
          metadata: Array.isArray(metadata) ? metadata[i]! : metadata,
        })),
        appendOptions,
      );
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError)) throw err;
      if (options.onConflict === 'return') return { conflict: true, state };
      if (attempt >= retries) throw err;
      continue;
    }
    let next = state;
    for (const event of events) next = evolver.evolve(next, event);
    return { conflict: false, state: next, events, revision: result.nextExpectedRevision, position: result.position };
  }
}

async function readStream<State, Event extends StreamEvent>(
  store: EventStore,
  streamId: string,
  evolver: Evolver<State, Event>,
): Promise<ReadStream<State>> {
  const recorded = await store.readStream(streamId);
  let state = evolver.initialState();
  for (const e of recorded) state = evolver.evolve(state, { type: e.type, data: e.data } as Event);
  return { state, revision: recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision };
}

import type { EventStore } from '../ports/event-store.js';
import type { ReadModelStore } from '../ports/read-model-store.js';
import type { Logger } from '../shared/logger.js';
import { PROJECTIONS, type AnyProjection } from '../../projections/index.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { ApiError } from '../domain/errors.js';

/** How long a read waits for its read models to pass the log's head before answering anyway. */
export const READ_YOUR_WRITES_TIMEOUT_MS = 2000;

/** Runs every projection of the service and answers "are the read models up to date?". */
export class ReadModels {
  readonly runners: Map<string, ProjectionRunner>;

  constructor(
    private readonly deps: { events: EventStore; store: ReadModelStore; logger?: Logger },
    projections: readonly AnyProjection[] = PROJECTIONS,
  ) {
    this.runners = new Map(projections.map((p) => [p.name, new ProjectionRunner(p, deps)]));
  }

  get store(): ReadModelStore {
    return this.deps.store;
  }

  async start(): Promise<void> {
    for (const r of this.runners.values()) await r.start();
  }

  async stop(): Promise<void> {
    for (const r of this.runners.values()) await r.stop();
  }

  runner(name: string): ProjectionRunner {
    const r = this.runners.get(name);
    if (!r) throw new ApiError('not_found', `No projection named ${name}.`);
    return r;
  }

  /**
   * Read-your-writes: waits until the named read model has applied everything that was in the log
   * when the read began, so a partner always sees its own completed writes. Bounded; never a sleep.
   */
  async catchUp(name: string, timeoutMs = READ_YOUR_WRITES_TIMEOUT_MS): Promise<boolean> {
    const head = await this.deps.events.headPosition();
    return this.runner(name).waitFor(head, timeoutMs);
  }

  /**
   * Each projection's progress: `position` is what this process has applied, `checkpoint` what is
   * stored (saved in batches, so it may trail `position` briefly), `lag` is head - position.
   */
  async status(): Promise<ProjectionStatus[]> {
    const head = await this.deps.events.headPosition();
    return Promise.all(
      [...this.runners.values()].map(async (r) => ({
        name: r.projection.name,
        collection: r.projection.collection,
        position: r.position.toString(),
        checkpoint: (await this.deps.store.checkpoint(r.projection.name)).toString(),
        head: head.toString(),
        lag: (head > r.position ? head - r.position : 0n).toString(),
      })),
    );
  }
}

/** Positions as decimal strings: they are bigints (EventStoreDB commit positions exceed 2^53). */
export interface ProjectionStatus {
  name: string;
  collection: string;
  position: string;
  checkpoint: string;
  head: string;
  lag: string;
}

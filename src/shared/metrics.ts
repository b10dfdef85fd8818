/**
 * What the service's components report to operators (docs/operations.md, "Metrics"). Components
 * depend on this interface only; src/composition/metrics.ts implements it with prom-client, one
 * registry per service instance. `noopMetrics` is the default wherever metrics are optional, so
 * components built without them (tests, the CLI) report nothing and cost nothing.
 */

/** How one webhook attempt ended: delivered (2xx), failed, or abandoned (its sender stopped before recording an outcome). */
export type WebhookAttemptOutcome = 'succeeded' | 'failed' | 'abandoned';

/** How one event store append ended: `conflict` is a WrongExpectedRevisionError. */
export type AppendOutcome = 'ok' | 'conflict' | 'error';

/** A value read when metrics are scraped. A callback that throws leaves its series out of that scrape. */
export type GaugeSource = () => number | bigint | Promise<number | bigint>;

/** Stops a callback registered with `onRetryQueueDepth` / `onConsumerGroupLag` (call it on stop). */
export type Unregister = () => void;

export interface ServiceMetrics {
  /**
   * This replica's name in the `replica` label (`lease_held`, `replica_info`):
   * `<host name>/<process id>/<random>`, unique per process start. Use it as the holder id of the
   * replica's leases, so the metrics and the lease streams name the same replica.
   */
  readonly replica: string;
  /** One answered HTTP request; `route` is the route's pattern (never the raw path). */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** One event store append. */
  eventStoreAppend(outcome: AppendOutcome, seconds: number): void;
  /** One webhook attempt (a POST to a partner's endpoint) and how long it took. */
  webhookAttempt(outcome: WebhookAttemptOutcome, seconds: number): void;
  /** Deliveries waiting for a retry, read at each scrape. A later call replaces the callback. */
  onRetryQueueDepth(source: GaugeSource): Unregister;
  /** Events of a consumer group not yet settled, read at each scrape. A later call for the same group replaces it. */
  onConsumerGroupLag(group: string, source: GaugeSource): Unregister;
  /** Whether this replica holds the named lease now (call on acquire, loss, release and stop). */
  setLeaseHeld(lease: string, held: boolean): void;
}

const nothing = (): void => undefined;

/** Reports nothing: the default for components built without metrics. */
export const noopMetrics: ServiceMetrics = {
  replica: 'local',
  httpRequest: nothing,
  eventStoreAppend: nothing,
  webhookAttempt: nothing,
  onRetryQueueDepth: () => nothing,
  onConsumerGroupLag: () => nothing,
  setLeaseHeld: nothing,
};

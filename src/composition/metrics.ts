import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ProjectionStatus } from '../application/read-models.js';
import type {
  AppendOutcome,
  GaugeSource,
  ServiceMetrics,
  Unregister,
  WebhookAttemptOutcome,
} from '../shared/metrics.js';

/** The text exposition of one scrape. */
export interface MetricsScrape {
  contentType: string;
  body: string;
}

const APPEND_OUTCOMES: AppendOutcome[] = ['ok', 'conflict', 'error'];
const WEBHOOK_OUTCOMES: WebhookAttemptOutcome[] = ['succeeded', 'failed', 'abandoned'];

/** Seconds. HTTP answers are mostly milliseconds; reads that wait for the read models take up to 2 s. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds. An embedded append is well under a millisecond; an EventStoreDB round trip a few. */
const APPEND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Seconds. A webhook attempt times out after 8 s. */
const WEBHOOK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16];

const num = (v: number | bigint | string): number => (typeof v === 'number' ? v : Number(v));

/**
 * prom-client's default collectors (CPU, memory, heap, event loop lag, GC, handles) describe the
 * process, so one registry of them serves every service instance of the process. Each set of
 * collectors keeps an event-loop-delay timer and a GC observer that cannot be stopped, so a set
 * per instance would leak one of each per service built (tests build many).
 */
let processRegistry: Registry | undefined;
function processRegistryOnce(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The service's metrics on a registry of its own (never prom-client's global one: tests build
 * several services in one process). Every metric is listed in docs/operations.md, "Metrics".
 */
export class PrometheusMetrics implements ServiceMetrics {
  /** This instance's own metrics; the process metrics are added at each scrape. */
  readonly registry = new Registry();
  readonly replica: string;
  /** The process metrics (shared by every instance of the process), unless turned off. */
  private readonly processMetrics: Registry | undefined;
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly appendDuration: Histogram<'outcome'>;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly webhookDuration: Histogram<'outcome'>;
  private readonly leaseHeld: Gauge<'lease' | 'replica'>;
  private retryQueueDepth: GaugeSource | undefined;
  private readonly groupLag = new Map<string, GaugeSource>();
  private projectionStatus: (() => Promise<ProjectionStatus[]>) | undefined;
  /** One read of the projections' status per scrape, shared by the gauges that report it. */
  private projectionScrape: Promise<ProjectionStatus[] | undefined> | undefined;

  constructor(options: { replica?: string; processMetrics?: boolean } = {}) {
    this.replica = options.replica ?? `${os.hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
    const registers = [this.registry];
    this.processMetrics = (options.processMetrics ?? true) ? processRegistryOnce() : undefined;

    this.httpRequests = new Counter({
      name: 'http_requests_total',
      help: 'Answered HTTP requests by method, route pattern ("(unmatched)" when no route matched) and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to finishing its answer, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.appendDuration = new Histogram({
      name: 'event_store_append_duration_seconds',
      help: 'Event store appends by outcome: ok, conflict (wrong expected revision: a concurrent writer won), error.',
      labelNames: ['outcome'],
      buckets: APPEND_BUCKETS,
      registers,
    });
    for (const outcome of APPEND_OUTCOMES) this.appendDuration.zero({ outcome });

    // The collect functions run with `this` bound to their gauge; these reach the instance.
    const projections = () => this.projections();
    const retryQueueDepth = () => this.retryQueueDepth;
    const groupLag = this.groupLag;
    new Gauge({
      name: 'projection_lag_positions',
      help: 'How far each projection is behind the head of the event log, in log positions (embedded: events; EventStoreDB: bytes of log).',
      labelNames: ['projection'],
      registers,
      async collect() {
        this.reset();
        for (const s of (await projections()) ?? []) this.set({ projection: s.name }, num(s.lag));
      },
    });
    new Gauge({
      name: 'projection_position',
      help: 'The last log position each projection has applied in this process.',
      labelNames: ['projection'],
      registers,
      async collect() {
        this.reset();
        for (const s of (await projections()) ?? []) this.set({ projection: s.name }, num(s.position));
      },
    });
    new Gauge({
      name: 'event_store_head_position',
      help: 'The position of the newest event in the log.',
      registers,
      async collect() {
        this.remove(); // absent, not 0, when it cannot be read
        const head = (await projections())?.[0]?.head;
        if (head !== undefined) this.set(num(head));
      },
    });

    this.webhookAttempts = new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook attempts by outcome: succeeded, failed, abandoned (the sender stopped before recording an outcome).',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookDuration = new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Time of one webhook attempt (the POST to the partner endpoint), by outcome.',
      labelNames: ['outcome'],
      buckets: WEBHOOK_BUCKETS,
      registers,
    });
    for (const outcome of WEBHOOK_OUTCOMES) {
      this.webhookAttempts.inc({ outcome }, 0);
      this.webhookDuration.zero({ outcome });
    }
    new Gauge({
      name: 'webhook_retry_queue_depth',
      help: 'Webhook deliveries waiting for their next attempt in this replica.',
      registers,
      async collect() {
        this.remove(); // absent, not 0, when nothing reports it or it cannot be read
        const value = await read(retryQueueDepth());
        if (value !== undefined) this.set(value);
      },
    });
    new Gauge({
      name: 'consumer_group_lag',
      help: 'Events of a consumer group (webhook-dispatcher, auto-accept) not yet settled.',
      labelNames: ['group'],
      registers,
      async collect() {
        this.reset();
        const values = await Promise.all(
          [...groupLag].map(async ([group, source]) => [group, await read(source)] as const),
        );
        for (const [group, value] of values) if (value !== undefined) this.set({ group }, value);
      },
    });
    this.leaseHeld = new Gauge({
      name: 'lease_held',
      help: 'Whether this replica holds the lease (1) or not (0).',
      labelNames: ['lease', 'replica'],
      registers,
    });
    new Gauge({ name: 'replica_info', help: 'Always 1; names this replica.', labelNames: ['replica'], registers }).set(
      { replica: this.replica },
      1,
    );
  }

  /** The projections whose lag and position the gauges report (ReadModels.status). */
  watchProjections(status: () => Promise<ProjectionStatus[]>): void {
    this.projectionStatus = status;
  }

  /** One scrape: this instance's metrics, then the process's, in the Prometheus text format (version 0.0.4). */
  async scrape(): Promise<MetricsScrape> {
    this.projectionScrape = undefined;
    const own = await this.registry.metrics();
    const body = this.processMetrics ? `${own}\n${await this.processMetrics.metrics()}` : own;
    return { contentType: this.registry.contentType, body };
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  eventStoreAppend(outcome: AppendOutcome, seconds: number): void {
    this.appendDuration.observe({ outcome }, seconds);
  }

  webhookAttempt(outcome: WebhookAttemptOutcome, seconds: number): void {
    this.webhookAttempts.inc({ outcome });
    this.webhookDuration.observe({ outcome }, seconds);
  }

  onRetryQueueDepth(source: GaugeSource): Unregister {
    this.retryQueueDepth = source;
    return () => {
      if (this.retryQueueDepth === source) this.retryQueueDepth = undefined;
    };
  }

  onConsumerGroupLag(group: string, source: GaugeSource): Unregister {
    this.groupLag.set(group, source);
    return () => {
      if (this.groupLag.get(group) === source) this.groupLag.delete(group);
    };
  }

  setLeaseHeld(lease: string, held: boolean): void {
    this.leaseHeld.set({ lease, replica: this.replica }, held ? 1 : 0);
  }

  /** The projections' status for this scrape; undefined (their series left out) when it cannot be read. */
  private projections(): Promise<ProjectionStatus[] | undefined> {
    const status = this.projectionStatus;
    if (!status) return Promise.resolve(undefined);
    return (this.projectionScrape ??= status().catch(() => undefined));
  }
}

async function read(source: GaugeSource | undefined): Promise<number | undefined> {
  if (!source) return undefined;
  try {
    return num(await source());
  } catch {
    return undefined;
  }
}

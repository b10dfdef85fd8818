import { randomUUID } from 'node:crypto';
import { ApiError, isApiError } from '../domain/errors.js';
import type { Query } from '../ports/read-model-store.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { ReadModels } from '../application/read-models.js';
import { DELIVERY_LOG_RETENTION, webhookDeliveries } from '../../projections/webhook-deliveries.js';
import { webhookEvents } from '../../projections/webhook-events.js';
import type { EventRecord } from '../domain/webhook/event-records.js';
import { ENDPOINT_DELETED_REASON } from './attempt.js';
import type { EventType } from '../domain/webhook/event-types.js';
import type { DeliveryLog } from './delivery-log.js';
import type { DeliveryState, DeliveryStatus } from '../domain/webhook/delivery-state.js';
import type { WebhookDispatcher } from './dispatcher.js';
import { notConfigured, type EndpointOwner, type WebhookEndpoints } from './endpoints.js';
import { testEnvelope } from '../domain/webhook/envelope.js';
import type { DeliveryScheduler } from './scheduler.js';

/** The most deliveries one DELETE of the endpoint ends, and one recovery redelivers (a request's worth of work). */
const MAX_ENDED = 10_000;
export const MAX_RECOVER = 10_000;
const RECOVER_PAGE = 500;

/** Spec "Limits": the delivery log shows deliveries created in the last 30 days (the store purges older ones). */
export const DELIVERY_RETENTION_MS = DELIVERY_LOG_RETENTION.afterMs;

export interface DeliveryListQuery {
  limit: number;
  starting_after?: string | undefined;
  type?: EventType | undefined;
  status?: DeliveryStatus | undefined;
  order_id?: string | undefined;
  event_id?: string | undefined;
}

/** The partner-facing side of deliveries: the log, one delivery, redelivery and test events. */
export class WebhookDeliveries {
  /** Deliveries a recovery running in this process has queued and not redelivered yet: a second recovery skips them. */
  private readonly recovering = new Set<string>();
  private readonly recoveries = new Set<Promise<void>>();
  /** Shutting down: recoveries start no more redeliveries (what is left stays failed, to recover again). */
  private stopping = false;

  constructor(
    private readonly deps: {
      readModels: ReadModels;
      log: DeliveryLog;
      scheduler: DeliveryScheduler;
      dispatcher: WebhookDispatcher;
      endpoints: WebhookEndpoints;
      clock: Clock;
      logger?: Logger;
    },
  ) {}

  /** Newest first, from the delivery-log projection once it includes every write made before this read. */
  async list(owner: EndpointOwner, q: DeliveryListQuery): Promise<{ deliveries: DeliveryState[]; has_more: boolean }> {
    const { readModels } = this.deps;
    await readModels.catchUp(webhookDeliveries.name);
    const where: Record<string, string> = { partner_id: owner.partnerId, environment: owner.environment };
    if (q.type !== undefined) where.event_type = q.type;
    if (q.status !== undefined) where.status = q.status;
    if (q.order_id !== undefined) where.order_id = q.order_id;
    if (q.event_id !== undefined) where.event_id = q.event_id;
    const query: Query = {
      where,
      range: { field: 'created_at', gte: this.retentionStart() },
      sort: { field: 'created_at', direction: 'desc' },
      limit: q.limit + 1,
    };
    if (q.starting_after !== undefined) {
      const cursor = await readModels.store.get<DeliveryState>(webhookDeliveries.collection, q.starting_after);
      if (!cursor || !this.visible(owner, cursor.doc)) {
        throw new ApiError('delivery_not_found', `starting_after: no delivery with id ${q.starting_after}.`, {
          param: 'starting_after',
        });
      }
      query.after = { value: cursor.doc.created_at, id: cursor.id };
    }
    const rows = await readModels.store.find<DeliveryState>(webhookDeliveries.collection, query);
    return { deliveries: rows.slice(0, q.limit).map((r) => r.doc), has_more: rows.length > q.limit };
  }

  /** A delivery whoever owns it, for operators (the console); undefined when there is none. */
  async find(deliveryId: string): Promise<DeliveryState | undefined> {
    return (await this.deps.log.load(deliveryId))?.state;
  }

  /** Always current: folded from the delivery's own stream. */
  async get(owner: EndpointOwner, deliveryId: string): Promise<DeliveryState> {
    const loaded = await this.deps.log.load(deliveryId);
    if (!loaded || !this.visible(owner, loaded.state)) throw notFound(deliveryId);
    return loaded.state;
  }

  /**
   * The same event (same id and body) again now, newly signed, recorded as one more attempt.
   * delivery_in_progress while another attempt of it is in flight (see attemptDelivery).
   */
  async redeliver(owner: EndpointOwner, deliveryId: string, requestId: string): Promise<DeliveryState> {
    const loaded = await this.deps.log.load(deliveryId);
    if (!loaded || !this.visible(owner, loaded.state)) throw notFound(deliveryId);
    // Nowhere to send it: refused as the test event, recover and rotation are, with nothing recorded.
    if (!(await this.deps.endpoints.get(owner))) throw notConfigured();
    return (await this.deps.scheduler.attemptNow(deliveryId, loaded.state, requestId)) ?? loaded.state;
  }

  /** A webhook.test event through the ordinary delivery path (sent whatever `events` subscribes to). */
  async sendTest(owner: EndpointOwner, requestId: string): Promise<DeliveryState> {
    const endpoint = await this.deps.endpoints.get(owner);
    if (!endpoint) throw notConfigured();
    const envelope = testEnvelope({
      sourceId: randomUUID(),
      partnerId: owner.partnerId,
      environment: owner.environment,
      created: this.deps.clock.now().toISOString(),
    });
    return this.deps.dispatcher.schedule(
      {
        partnerId: owner.partnerId,
        environment: owner.environment,
        url: endpoint.url,
        envelope,
        orderId: null,
        orderRevision: null,
        typeIndex: 0,
      },
      { causationId: null, correlationId: requestId, requestId },
    );
  }

  /**
   * Ends every delivery of the owner that is still pending or retrying as failed (the endpoint was
   * deleted); returns how many. A delivery with an attempt out is left to it, so the attempt's
   * outcome is recorded: a success stands, a failure finds the endpoint gone and ends the delivery.
   */
  async endUnfinished(owner: EndpointOwner, reason = ENDPOINT_DELETED_REASON): Promise<number> {
    const { readModels, log, scheduler, clock } = this.deps;
    await readModels.catchUp(webhookDeliveries.name);
    let ended = 0;
    for (const status of ['pending', 'retrying'] as const) {
      const rows = await readModels.store.find<DeliveryState>(webhookDeliveries.collection, {
        where: { partner_id: owner.partnerId, environment: owner.environment, status },
        sort: { field: 'created_at', direction: 'asc' },
        limit: MAX_ENDED,
      });
      for (const row of rows) {
        const loaded = await log.load(row.id);
        if (!loaded) continue;
        const handled = await log.handle(
          loaded,
          (state) =>
            (state.status === 'pending' || state.status === 'retrying') && !state.sending
              ? [
                  {
                    type: 'WebhookDeliveryFailed',
                    data: {
                      delivery_id: state.id,
                      at: clock.now().toISOString(),
                      attempts: state.scheduled_attempts,
                      reason,
                    },
                  },
                ]
              : [],
          { causationId: null, correlationId: loaded.state.event_id, requestId: null },
        );
        if (handled.events.length > 0) ended++;
        if (handled.state) scheduler.track(handled.state);
      }
    }
    return ended;
  }

  /**
   * Bulk recovery: every event created since `since` whose latest delivery attempt failed (the
   * events API's `delivery_success=false`) is redelivered, each as one recorded attempt. Events of
   * one order go one after another, in the order they happened; orders go side by side, as many as
   * the endpoint's concurrency limit. Returns how many were queued; the attempts run after it returns.
   */
  async recover(
    owner: EndpointOwner,
    since: string,
    requestId: string,
  ): Promise<{ queued: number; done: Promise<void> }> {
    const { readModels, scheduler, endpoints, clock } = this.deps;
    if (!(await endpoints.get(owner))) throw notConfigured();
    const oldest = this.retentionStart();
    if (since < oldest || Date.parse(since) > clock.now().getTime()) {
      throw new ApiError(
        'time_out_of_range',
        `since: must be within the last 30 days (not before ${oldest}) and not in the future.`,
        {
          param: 'since',
        },
      );
    }
    await readModels.catchUp(webhookEvents.name);
    const failed: EventRecord[] = [];
    let after: { value: string; id: string } | undefined;
    for (;;) {
      const page = await readModels.store.find<EventRecord>(webhookEvents.collection, {
        where: { partner_id: owner.partnerId, environment: owner.environment, delivery_success: false },
        range: { field: 'sort_key', gte: since },
        sort: { field: 'sort_key', direction: 'asc' },
        limit: RECOVER_PAGE,
        ...(after ? { after } : {}),
      });
      for (const row of page) if (row.doc.delivery_id) failed.push(row.doc);
      const last = page[page.length - 1];
      if (!last || page.length < RECOVER_PAGE || failed.length >= MAX_RECOVER) break;
      after = { value: last.doc.sort_key, id: last.id };
    }
    // Those a recovery still running here has queued are left to it, so calling twice sends nothing twice.
    const queued = failed.filter((e) => !this.recovering.has(e.delivery_id!)).slice(0, MAX_RECOVER);
    for (const e of queued) this.recovering.add(e.delivery_id!);
    // One lane per order (a webhook.test event is a lane of its own), each in the order its events happened.
    const lanes = new Map<string, EventRecord[]>();
    for (const e of queued) {
      const lane = e.order_id ?? e.event_id;
      lanes.set(lane, [...(lanes.get(lane) ?? []), e]);
    }
    const rank = (e: EventRecord) => [e.order_revision ?? 0, e.type_index] as const;
    for (const events of lanes.values()) {
      events.sort((a, b) => rank(a)[0] - rank(b)[0] || rank(a)[1] - rank(b)[1]);
    }
    const waiting = [...lanes.values()];
    const worker = async () => {
      for (let lane = waiting.shift(); lane; lane = waiting.shift()) {
        for (const e of lane) {
          try {
            if (!this.stopping) await this.redeliverQuietly(e.delivery_id!, owner, requestId);
          } finally {
            this.recovering.delete(e.delivery_id!);
          }
        }
      }
    };
    const done = Promise.all(
      Array.from({ length: Math.min(scheduler.endpointConcurrency, waiting.length) }, worker),
    ).then(() => undefined);
    this.recoveries.add(done);
    void done.finally(() => this.recoveries.delete(done));
    return { queued: queued.length, done };
  }

  /** Resolves once every recovery running in this process has made its redeliveries. */
  async recoveriesSettled(): Promise<void> {
    await Promise.all([...this.recoveries]);
  }

  /** Shutting down: running recoveries start no more redeliveries; resolves once those out have ended. */
  stopRecoveries(): Promise<void> {
    this.stopping = true;
    return this.recoveriesSettled();
  }

  /**
   * One redelivery of a recovery, unless the event's latest attempt succeeded meanwhile (a
   * redelivery from elsewhere); an attempt of it already in flight counts as that redelivery.
   */
  private async redeliverQuietly(deliveryId: string, owner: EndpointOwner, requestId: string): Promise<void> {
    const d = { partner_id: owner.partnerId, environment: owner.environment };
    try {
      const latest = (await this.deps.log.load(deliveryId))?.state.attempts.at(-1);
      if (latest && latest.error === null) return;
      // Deleted since the recovery began: the rest has nowhere to go (and nothing is recorded).
      if (!(await this.deps.endpoints.get(owner))) return;
      await this.deps.scheduler.attemptNow(deliveryId, d, requestId);
    } catch (err) {
      if (isApiError(err) && err.code === 'delivery_in_progress') return;
      this.deps.logger?.error({ err, delivery_id: deliveryId }, 'webhook recovery could not redeliver an event');
    }
  }

  private retentionStart(): string {
    return new Date(this.deps.clock.now().getTime() - DELIVERY_RETENTION_MS).toISOString();
  }

  private visible(owner: EndpointOwner, d: DeliveryState): boolean {
    return (
      d.partner_id === owner.partnerId && d.environment === owner.environment && d.created_at >= this.retentionStart()
    );
  }
}

function notFound(id: string): ApiError {
  return new ApiError('delivery_not_found', `No webhook delivery with id ${id}.`, { param: 'delivery_id' });
}

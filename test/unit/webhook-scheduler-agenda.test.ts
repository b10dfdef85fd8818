import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeliveryState, DeliveryStatus } from '../../src/domain/webhook/delivery-state.js';
import { ManualClock } from '../../src/shared/clock.js';
import { deliveryInProgress } from '../../src/webhooks/attempt.js';
import { DeliveryScheduler } from '../../src/webhooks/scheduler.js';
import { deliveryState } from '../support/delivery-state.js';

// The scheduler's agenda against a plain model of its rules, over random runs: deliveries tracked
// for three endpoints, attempts ending delivered, due again, or failing to be made, and time moving.
// At every attempt started: it was due, an endpoint's slots and the overall limit held, no earlier
// delivery of its order still waited for a first attempt, and nothing that could go was due before
// it. After every step: nothing due waits while it could go.

const START = Date.parse('2026-11-21T12:00:00Z');
const ENDPOINTS = ['ptn_a', 'ptn_b', 'ptn_c'];
const PER_ENDPOINT = 2;
const CONCURRENCY = 4;

function delivery(
  id: string,
  d: {
    endpoint: number;
    order: number;
    revision: number;
    typeIndex?: number;
    at: number;
    attempts: number;
    status?: DeliveryStatus;
  },
): DeliveryState {
  const attempted = d.attempts > 0;
  return deliveryState(id, new Date(d.at).toISOString(), {
    partner_id: ENDPOINTS[d.endpoint]!,
    environment: 'live',
    event_type: 'order.status_changed',
    order_id: `ord_${d.endpoint}_${d.order}`,
    order_revision: d.revision,
    type_index: d.typeIndex ?? 0,
    status: d.status ?? (attempted ? 'retrying' : 'pending'),
    attempt_count: d.attempts,
    scheduled_attempts: d.attempts,
    ...(d.status === 'succeeded' ? { next_attempt_at: null } : {}),
  });
}

type Step =
  | { kind: 'track'; endpoint: number; order: number; revision: number; inMs: number; attempts: number }
  | { kind: 'retrack'; pick: number; inMs: number }
  | { kind: 'redeliver'; pick: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'finish'; pick: number; outcome: 'delivered' | 'again' | 'gone' | 'error' | 'refused'; inMs: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('track' as const),
      endpoint: fc.integer({ min: 0, max: 2 }),
      order: fc.integer({ min: 0, max: 3 }),
      revision: fc.integer({ min: 1, max: 3 }),
      inMs: fc.integer({ min: -2_000, max: 5_000 }),
      attempts: fc.constantFrom(0, 0, 0, 1, 3),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('retrack' as const),
      pick: fc.nat(),
      inMs: fc.integer({ min: -1_000, max: 3_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('redeliver' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 70_000 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('finish' as const),
      pick: fc.nat(),
      outcome: fc.constantFrom(
        'delivered' as const,
        'again' as const,
        'gone' as const,
        'error' as const,
        'refused' as const,
      ),
      inMs: fc.integer({ min: 0, max: 10_000 }),
    }),
  },
);

const rankBefore = (a: DeliveryState, b: DeliveryState) =>
  a.order_revision! < b.order_revision! || (a.order_revision === b.order_revision && a.type_index < b.type_index);

describe('DeliveryScheduler agenda', () => {
  it('given random tracks, redeliveries, outcomes and time, then every start keeps the limits, lane order and earliest due first, none starts twice, and nothing due waits for no reason', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 20, maxLength: 80 }), async (steps) => {
        const clock = new ManualClock(new Date(START).toISOString());
        /** The model: what each delivery was last tracked as, and the attempts in flight. */
        const tracked = new Map<string, DeliveryState>();
        const retryAt = new Map<string, number>(); // after an attempt that could not be made
        const inFlight = new Map<
          string,
          { trigger: string; resolve: (s: DeliveryState | null) => void; reject: (e: Error) => void }
        >();
        const violations: string[] = [];
        const endpointOf = (s: DeliveryState) => s.partner_id;
        const dueOf = (s: DeliveryState) => retryAt.get(s.id) ?? Date.parse(s.next_attempt_at!);
        const onAgenda = () => [...tracked.values()].filter((s) => s.next_attempt_at !== null);
        const waiting = () => onAgenda().filter((s) => !inFlight.has(s.id));
        const busy = (endpoint: string) =>
          [...inFlight.keys()].filter((id) => endpointOf(tracked.get(id)!) === endpoint);
        const laneFree = (s: DeliveryState) =>
          s.attempt_count > 0 ||
          !onAgenda().some(
            (o) => o.id !== s.id && o.order_id === s.order_id && o.attempt_count === 0 && rankBefore(o, s),
          );
        const mayGo = (s: DeliveryState, now: number) =>
          dueOf(s) <= now && busy(endpointOf(s)).length < PER_ENDPOINT && laneFree(s);

        const scheduler = new DeliveryScheduler(
          {
            clock,
            attempt: (id, trigger) => {
              const s = tracked.get(id)!;
              const now = clock.now().getTime();
              const check = (ok: boolean, what: string) => ok || violations.push(`${id} (${trigger}): ${what}`);
              check(!inFlight.has(id), 'started while in flight');
              check(busy(endpointOf(s)).length < PER_ENDPOINT, "over the endpoint's limit");
              // A redelivery waits only for a slot of its endpoint (the API's caller is waiting).
              if (trigger === 'schedule') {
                check(inFlight.size < CONCURRENCY, 'over the overall limit');
                check(dueOf(s) <= now, 'not due');
                check(laneFree(s), 'ahead of an earlier delivery of its order');
                for (const other of waiting())
                  if (mayGo(other, now)) check(dueOf(s) <= dueOf(other), `started before ${other.id}, due earlier`);
              }
              return new Promise((resolve, reject) => inFlight.set(id, { trigger, resolve, reject }));
            },
          },
          { concurrency: CONCURRENCY, perEndpoint: PER_ENDPOINT, pollMs: 3_600_000 },
        );
        scheduler.start();
        let n = 0;
        const pick = <T>(list: T[], k: number) => (list.length === 0 ? undefined : list[k % list.length]);
        for (const s of steps) {
          const now = clock.now().getTime();
          if (s.kind === 'track') {
            // Ranks unique per order (the type index is the step's number), in any order of arrival.
            const state = delivery(`d${n}`, { ...s, typeIndex: n++, at: now + s.inMs });
            tracked.set(state.id, state);
            scheduler.track(state);
          } else if (s.kind === 'retrack') {
            // The same delivery tracked again (the rescan, a command), in flight or not.
            const before = pick(onAgenda(), s.pick);
            if (!before) continue;
            const again = { ...before, next_attempt_at: new Date(now + s.inMs).toISOString() };
            retryAt.delete(again.id);
            tracked.set(again.id, again);
            scheduler.track(again);
          } else if (s.kind === 'redeliver') {
            const target = pick(waiting(), s.pick);
            if (!target) continue;
            void scheduler.attemptNow(target.id, target).catch(() => undefined);
          } else if (s.kind === 'advance') {
            clock.advance(s.ms);
            void scheduler.runDue(); // a pump now, as the production timer's next tick (its wait for those in flight is not awaited)
          } else {
            const id = pick([...inFlight.keys()], s.pick);
            if (!id) continue;
            const { trigger, resolve, reject } = inFlight.get(id)!;
            inFlight.delete(id);
            const before = tracked.get(id)!;
            if (s.outcome === 'error' || s.outcome === 'refused') {
              // The scheduler puts it back a minute later (a redelivery's caller also hears of it);
              // a redelivery refused by the API is only its caller's answer.
              const refusedRedelivery = s.outcome === 'refused' && trigger === 'redelivery';
              if (before.next_attempt_at !== null && !refusedRedelivery) retryAt.set(id, now + 60_000);
              reject(s.outcome === 'refused' ? deliveryInProgress(id) : new Error('store unavailable'));
            } else if (s.outcome === 'gone') {
              if (trigger === 'schedule') tracked.delete(id); // forgotten
              resolve(null);
            } else {
              const after = delivery(id, {
                endpoint: ENDPOINTS.indexOf(before.partner_id),
                order: Number(before.order_id!.split('_')[2]),
                revision: before.order_revision!,
                typeIndex: before.type_index,
                at: now + s.inMs,
                attempts: before.attempt_count + 1,
                ...(s.outcome === 'delivered' ? { status: 'succeeded' as const } : {}),
              });
              // A scheduled attempt's outcome is tracked; a redelivery's goes to its caller only.
              if (trigger === 'schedule') {
                retryAt.delete(id);
                tracked.set(id, after);
              }
              resolve(after);
            }
          }
          for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
          expect(violations).toEqual([]);
          const at = clock.now().getTime();
          if (inFlight.size < CONCURRENCY) for (const w of waiting()) expect(mayGo(w, at), w.id).toBe(false);
          expect(scheduler.pending()).toBe(onAgenda().length);
        }
        for (const { resolve } of inFlight.values()) resolve(null);
        await scheduler.stop();
      }),
      { numRuns: 300 },
    );
  });

  it('given a redelivery in flight for a delivery on the agenda, when the agenda is pumped, then it is passed over, those behind it go, and it goes after', async () => {
    const clock = new ManualClock(new Date(START).toISOString());
    const started: string[] = [];
    const finish = new Map<string, (s: DeliveryState | null) => void>();
    const scheduler = new DeliveryScheduler(
      {
        clock,
        attempt: (id, trigger) => {
          started.push(`${id}:${trigger}`);
          return new Promise((resolve) => finish.set(id, resolve));
        },
      },
      { perEndpoint: 2, pollMs: 3_600_000 },
    );
    const first = delivery('d0', { endpoint: 0, order: 0, revision: 1, at: START - 1_000, attempts: 1 });
    scheduler.track(first);
    const redelivered = scheduler.attemptNow('d0', first);
    scheduler.track(delivery('d1', { endpoint: 0, order: 1, revision: 1, at: START, attempts: 0 }));
    scheduler.start();
    void scheduler.runDue();
    expect(started).toEqual(['d0:redelivery', 'd1:schedule']);

    finish.get('d0')!(null);
    await redelivered;
    void scheduler.runDue();
    expect(started).toEqual(['d0:redelivery', 'd1:schedule', 'd0:schedule']);
    for (const resolve of finish.values()) resolve(null);
    await scheduler.stop();
  });
});

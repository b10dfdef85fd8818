import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeliveryState, DeliveryStatus } from '../../src/domain/webhook/delivery-state.js';
import { ManualClock } from '../../src/shared/clock.js';
import { DeliveryScheduler } from '../../src/webhooks/scheduler.js';

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
  d: { endpoint: number; order: number; revision: number; at: number; attempts: number; status?: DeliveryStatus },
): DeliveryState {
  const at = new Date(d.at).toISOString();
  return {
    id,
    partner_id: ENDPOINTS[d.endpoint]!,
    environment: 'live',
    event_id: `evt_${id}`,
    event_type: 'order.status_changed',
    order_id: `ord_${d.endpoint}_${d.order}`,
    order_revision: d.revision,
    type_index: 0,
    url: 'https://example.com/hook',
    status: d.status ?? (d.attempts > 0 ? 'retrying' : 'pending'),
    attempt_count: d.attempts,
    scheduled_attempts: d.attempts,
    next_attempt_at: d.status === 'succeeded' ? null : at,
    redelivery_requested_at: null,
    created_at: at,
    updated_at: at,
    attempts: [],
    sending: null,
    abandoned_claims: 0,
  };
}

type Step =
  | { kind: 'track'; endpoint: number; order: number; revision: number; inMs: number; attempts: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'finish'; pick: number; outcome: 'delivered' | 'again' | 'error'; inMs: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('track' as const),
    endpoint: fc.integer({ min: 0, max: 2 }),
    order: fc.integer({ min: 0, max: 3 }),
    revision: fc.integer({ min: 1, max: 6 }),
    inMs: fc.integer({ min: -2_000, max: 5_000 }),
    attempts: fc.constantFrom(0, 0, 0, 1, 3),
  }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 70_000 }) }),
  fc.record({
    kind: fc.constant('finish' as const),
    pick: fc.nat(),
    outcome: fc.constantFrom('delivered' as const, 'again' as const, 'error' as const),
    inMs: fc.integer({ min: 0, max: 10_000 }),
  }),
);

describe('DeliveryScheduler agenda', () => {
  it('given random tracks, outcomes and time, then every start keeps the limits, lane order and earliest due first, and nothing due waits for no reason', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
        const clock = new ManualClock(new Date(START).toISOString());
        /** The model: what each delivery was last tracked as, and the attempts in flight. */
        const tracked = new Map<string, DeliveryState>();
        const retryAt = new Map<string, number>(); // after an attempt that could not be made
        const inFlight = new Map<string, { resolve: (s: DeliveryState | null) => void; reject: (e: Error) => void }>();
        const endpointOf = (s: DeliveryState) => s.partner_id;
        const dueOf = (s: DeliveryState) => retryAt.get(s.id) ?? Date.parse(s.next_attempt_at!);
        const waiting = () => [...tracked.values()].filter((s) => s.next_attempt_at !== null && !inFlight.has(s.id));
        const busy = (endpoint: string) =>
          [...inFlight.keys()].filter((id) => endpointOf(tracked.get(id)!) === endpoint);
        const laneFree = (s: DeliveryState) =>
          s.attempt_count > 0 ||
          ![...tracked.values()].some(
            (o) =>
              o.id !== s.id &&
              o.next_attempt_at !== null &&
              o.order_id === s.order_id &&
              o.attempt_count === 0 &&
              o.order_revision! < s.order_revision!,
          );
        const mayGo = (s: DeliveryState, now: number) =>
          dueOf(s) <= now && busy(endpointOf(s)).length < PER_ENDPOINT && laneFree(s);

        const scheduler = new DeliveryScheduler(
          {
            clock,
            attempt: (id) => {
              const s = tracked.get(id)!;
              const now = clock.now().getTime();
              expect(dueOf(s)).toBeLessThanOrEqual(now);
              expect(inFlight.size).toBeLessThan(CONCURRENCY);
              expect(busy(endpointOf(s)).length).toBeLessThan(PER_ENDPOINT);
              expect(laneFree(s)).toBe(true);
              for (const other of waiting()) if (mayGo(other, now)) expect(dueOf(s)).toBeLessThanOrEqual(dueOf(other));
              return new Promise((resolve, reject) => inFlight.set(id, { resolve, reject }));
            },
          },
          { concurrency: CONCURRENCY, perEndpoint: PER_ENDPOINT, pollMs: 3_600_000 },
        );
        scheduler.start();
        let n = 0;
        for (const s of steps) {
          const now = clock.now().getTime();
          if (s.kind === 'track') {
            // Revisions unique per order, in any order of arrival.
            const state = delivery(`d${n}`, { ...s, revision: s.revision * 1000 + n++, at: now + s.inMs });
            tracked.set(state.id, state);
            scheduler.track(state);
          } else if (s.kind === 'advance') {
            clock.advance(s.ms);
            void scheduler.runDue(); // a pump now, as the production timer's next tick (its wait for those in flight is not awaited)
          } else {
            const ids = [...inFlight.keys()];
            if (ids.length === 0) continue;
            const id = ids[s.pick % ids.length]!;
            const { resolve, reject } = inFlight.get(id)!;
            inFlight.delete(id);
            const before = tracked.get(id)!;
            const attempts = before.attempt_count + 1;
            retryAt.delete(id);
            if (s.outcome === 'error') {
              retryAt.set(id, now + 60_000);
              reject(new Error('store unavailable'));
            } else {
              const after = delivery(id, {
                endpoint: ENDPOINTS.indexOf(before.partner_id),
                order: Number(before.order_id!.split('_')[2]),
                revision: before.order_revision!,
                at: now + s.inMs,
                attempts,
                ...(s.outcome === 'delivered' ? { status: 'succeeded' as const } : {}),
              });
              tracked.set(id, after);
              resolve(after);
            }
          }
          for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
          const at = clock.now().getTime();
          if (inFlight.size < CONCURRENCY) for (const w of waiting()) expect(mayGo(w, at)).toBe(false);
          expect(scheduler.pending()).toBe([...tracked.values()].filter((t) => t.next_attempt_at !== null).length);
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

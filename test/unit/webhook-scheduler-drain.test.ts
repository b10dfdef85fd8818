import { describe, expect, it } from 'vitest';
import type { DeliveryState } from '../../src/domain/webhook/delivery-state.js';
import { ManualClock } from '../../src/shared/clock.js';
import { DeliveryScheduler } from '../../src/webhooks/scheduler.js';
import { deliveryState } from '../support/delivery-state.js';

// Shutting down: the scheduler starts no new attempt once draining (one started then could outlast
// the shutdown's deadline and go unrecorded), and stop waits for the ones already in flight.

const clock = new ManualClock('2026-11-21T12:00:00Z');

function due(id: string): DeliveryState {
  return deliveryState(id, clock.now().toISOString());
}

describe('DeliveryScheduler.drain', () => {
  it('when draining, then no scheduled attempt starts, not even after start(), and stop waits for the one in flight', async () => {
    const started: string[] = [];
    let release!: () => void;
    const scheduler = new DeliveryScheduler({
      clock,
      attempt: (id) => {
        started.push(id);
        return new Promise((resolve) => (release = () => resolve(null)));
      },
    });
    scheduler.start();
    scheduler.track(due('d1'));
    expect(started).toEqual(['d1']);

    scheduler.drain();
    scheduler.track(due('d2'));
    scheduler.start();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['d1']);
    expect(scheduler.pending()).toBe(2); // d1 in flight, d2 still due (and in the delivery log, for the next sender)

    let stopped = false;
    const stopping = scheduler.stop().then(() => (stopped = true));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(started).toEqual(['d1']);
  });
});

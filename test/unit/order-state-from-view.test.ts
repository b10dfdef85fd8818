import { describe, expect, it } from 'vitest';
import { evolve, rehydrate, stateFromView } from '../../src/domain/order/state.js';
import { decide } from '../../src/domain/order/decide.js';
import type { OrderEvent } from '../../src/domain/order/events.js';
import { ev } from './order-fixtures.js';

describe('stateFromView', () => {
  it('when a view is turned back into a state, then folding the next events gives what the full fold gives', () => {
    const at = '2026-11-21T12:00:00.000Z';
    let events: OrderEvent[] = [ev.placed()];
    for (const command of [{ type: 'sandboxAdvance' }, { type: 'sandboxAdvance' }, { type: 'sandboxAdvance' }, { type: 'sandboxAdvance' }] as const) {
      const full = rehydrate(events);
      const resumed = stateFromView(full.order!);
      const next = decide(full, command, at);
      expect(decide(resumed, command, at)).toEqual(next);
      expect(next.reduce(evolve, resumed).order).toEqual(next.reduce(evolve, full).order);
      events = [...events, ...next];
    }
    expect(rehydrate(events).order!.status).toBe('out_for_delivery');
  });
});

import { describe, expect, it } from 'vitest';
import {
  EVENT_TYPES,
  EventTypeSchema,
  isEventType,
  ORDER_EVENT_TYPES,
  unknownEventTypes,
} from '../../src/domain/webhook/event-types.js';

describe('event types', () => {
  it('when listed, then they are exactly the spec table', () => {
    expect(EVENT_TYPES).toEqual([
      'order.created',
      'order.status_changed',
      'order.payment_updated',
      'order.refunded',
      'webhook.test',
    ]);
    expect(ORDER_EVENT_TYPES).toEqual([
      'order.created',
      'order.status_changed',
      'order.payment_updated',
      'order.refunded',
    ]);
  });

  it('when parsed with the zod enum, then known names pass and others fail', () => {
    expect(EventTypeSchema.parse('order.refunded')).toBe('order.refunded');
    expect(EventTypeSchema.safeParse('order.deleted').success).toBe(false);
    expect(EventTypeSchema.safeParse('ORDER.CREATED').success).toBe(false);
  });

  it('when checking names, then unknown ones are reported once each, in order', () => {
    expect(isEventType('webhook.test')).toBe(true);
    expect(isEventType('order.*')).toBe(false);
    expect(unknownEventTypes(['order.created', 'order.deleted', 'x', 'order.deleted'])).toEqual(['order.deleted', 'x']);
    expect(unknownEventTypes([...EVENT_TYPES])).toEqual([]);
  });
});

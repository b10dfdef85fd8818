import { z } from 'zod';

/** The public webhook event types (spec "Events"). Partners must tolerate new ones being added. */
export const EVENT_TYPES = [
  'order.created',
  'order.status_changed',
  'order.payment_updated',
  'order.refunded',
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const EventTypeSchema = z.enum(EVENT_TYPES);

/** The types an order's own history produces (everything except `webhook.test`). */
export const ORDER_EVENT_TYPES = EVENT_TYPES.filter(
  (t): t is Exclude<EventType, 'webhook.test'> => t !== 'webhook.test',
);

const known: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isEventType(name: string): name is EventType {
  return known.has(name);
}

/** The names in `names` that are not event types, deduplicated, in first-seen order (for a 400 naming them). */
export function unknownEventTypes(names: readonly string[]): string[] {
  return [...new Set(names.filter((n) => !known.has(n)))];
}

/**
 * A store's status at an instant, from its hours in its own time zone, dated closures,
 * snooze and flags. Rules (docs/catalog.md):
 * - with the store's accepting_orders flag off (online orders paused, no known end), outside
 *   opening hours, on a closure date, or while snoozed: `closed`;
 * - otherwise `busy` when the busy flag is set (open, but slower), else `open`;
 * - accepting_orders = not closed: the two are one answer, so a store listed as open takes orders.
 * A closure date closes the whole local date and cancels the shift that starts on it,
 * including that shift's part after midnight.
 */
import { addDays, instantOf, localTime, minutesOf, weekdayOf, zoneOffsetMs } from './local-time.js';
import type { Store } from './model.js';

export type StoreStatusValue = 'open' | 'busy' | 'closed';
export const CLOSED_REASONS = ['paused', 'outside_hours', 'closure', 'snoozed'] as const;
export type ClosedReason = (typeof CLOSED_REASONS)[number];

export interface StoreStatus {
  status: StoreStatusValue;
  /** Always `status !== 'closed'`; kept as its own field for clients that read only this. */
  accepting_orders: boolean;
  /** Why the store is closed; null when it is not. */
  closed_reason: ClosedReason | null;
  /** When closed: the next instant (ISO 8601 UTC) it opens, if within a week; else null. */
  opens_at: string | null;
}

type Hours = Pick<Store, 'time_zone' | 'opening_hours' | 'closures'>;
type Statusable = Hours & Pick<Store, 'snoozed_until' | 'busy' | 'accepting_orders'>;

export function storeStatus(store: Statusable, at: Date): StoreStatus {
  // Paused has no end the service knows of: nothing to announce in opens_at.
  if (!store.accepting_orders)
    return { status: 'closed', accepting_orders: false, closed_reason: 'paused', opens_at: null };
  const reason = closedReason(store, at);
  if (reason !== null)
    return { status: 'closed', accepting_orders: false, closed_reason: reason, opens_at: nextOpening(store, at) };
  return {
    status: store.busy ? 'busy' : 'open',
    accepting_orders: true,
    closed_reason: null,
    opens_at: null,
  };
}

export type StatusFn = (store: Store, at: Date) => StoreStatus;

/**
 * storeStatus remembered per store for one minute (for CatalogIndex, which asks for the same
 * stores again and again). Hours and closures only change on minute boundaries; a snooze that
 * ends inside the minute bypasses the memo. Answers are frozen: they are shared.
 */
export function memoisedStatus(): StatusFn {
  const memo = new WeakMap<Store, { minute: number; status: StoreStatus }>();
  return (store, at) => {
    const minute = Math.floor(at.getTime() / 60_000);
    if (store.snoozed_until !== null && Math.floor(Date.parse(store.snoozed_until) / 60_000) === minute)
      return storeStatus(store, at);
    const hit = memo.get(store);
    if (hit && hit.minute === minute) return hit.status;
    const status = Object.freeze(storeStatus(store, at));
    memo.set(store, { minute, status });
    return status;
  };
}

/** Why hours, closures or a snooze close the store at `at` (the flag is checked before). */
function closedReason(store: Statusable, at: Date): Exclude<ClosedReason, 'paused'> | null {
  const hours = hoursAt(store, at);
  if (hours !== 'open') return hours;
  if (isSnoozed(store, at)) return 'snoozed';
  return null;
}

function isSnoozed(store: Pick<Store, 'snoozed_until'>, at: Date): boolean {
  return store.snoozed_until !== null && Date.parse(store.snoozed_until) > at.getTime();
}

/** Whether the opening hours and closures (not snooze or flags) have the store open at `at`. */
export function hoursAt(store: Hours, at: Date): 'open' | 'outside_hours' | 'closure' {
  const now = localTime(at, store.time_zone);
  const closed = (date: string) => store.closures.some((c) => c.date === date);
  if (closed(now.date)) return 'closure';
  const yesterday = addDays(now.date, -1);
  const yesterdayDay = weekdayOf(yesterday);
  for (const span of store.opening_hours) {
    const open = minutesOf(span.open);
    const close = minutesOf(span.close);
    const overnight = close <= open;
    if (span.day === now.day && now.minute >= open && (overnight || now.minute < close)) return 'open';
    if (overnight && span.day === yesterdayDay && now.minute < close && !closed(yesterday)) return 'open';
  }
  return 'outside_hours';
}

/**
 * The store can only start being open at a span's opening or at the end of a snooze, so those
 * instants are the candidates, tried in time order, one local date at a time (usually the
 * first date or two decide it).
 */
function nextOpening(store: Statusable, at: Date): string | null {
  const now = localTime(at, store.time_zone);
  const offset = zoneOffsetMs(at, store.time_zone);
  const horizon = at.getTime() + 7 * 86_400_000;
  const snoozeEnd = store.snoozed_until === null ? null : Date.parse(store.snoozed_until);
  const tried = new Set<number>();
  for (let k = 0; k <= 7; k++) {
    const date = addDays(now.date, k);
    const day = weekdayOf(date);
    const spans = store.opening_hours.filter(
      (span) => span.day === day && (k > 0 || minutesOf(span.open) > now.minute),
    );
    const candidates = spans.map((span) => instantOf(date, minutesOf(span.open), store.time_zone, offset).getTime());
    if (snoozeEnd !== null) candidates.push(snoozeEnd);
    for (const t of candidates.sort((a, b) => a - b)) {
      if (t <= at.getTime() || t > horizon || tried.has(t)) continue;
      tried.add(t);
      if (closedReason(store, new Date(t)) === null) return new Date(t).toISOString();
    }
  }
  return null;
}

/** Opening-hour profiles of the demo stores. A close at or before the open runs past midnight. */
import { WEEKDAYS, type Weekday } from '../domain/catalog/local-time.js';
import type { OpeningSpan } from '../domain/catalog/model.js';

const on = (days: readonly Weekday[], open: string, close: string): OpeningSpan[] =>
  days.map((day) => ({ day, open, close }));
const except = (...skip: Weekday[]) => WEEKDAYS.filter((d) => !skip.includes(d));

export const HOURS = {
  /** Around the clock, every day. */
  '24h': on(WEEKDAYS, '00:00', '24:00'),
  day: on(WEEKDAYS, '10:00', '23:00'),
  /** Overnight: to 2 am, and to 4 am into Friday and Saturday. */
  late: [...on(except('thu', 'fri'), '12:00', '02:00'), ...on(['thu', 'fri'], '12:00', '04:00')],
  /** Evening to 3 am. */
  dinner: on(WEEKDAYS, '18:00', '03:00'),
  cafe: on(WEEKDAYS, '06:30', '23:00'),
  breakfast: on(WEEKDAYS, '05:30', '12:30'),
  /** Lunch only, closed on Fridays. */
  lunch: on(except('fri'), '11:00', '16:00'),
  /** Two shifts, Friday evening only. */
  split: [
    ...on(except('fri'), '09:00', '13:00'),
    ...on(except('fri'), '16:30', '23:00'),
    ...on(['fri'], '16:30', '23:00'),
  ],
  /** 7 am to 1 am. */
  grocery: on(WEEKDAYS, '07:00', '01:00'),
  'weekend-late': [
    ...on(['sun', 'mon', 'tue', 'wed'], '11:00', '23:00'),
    ...on(['thu', 'fri', 'sat'], '11:00', '02:00'),
  ],
  /** To midnight. */
  pharmacy: on(WEEKDAYS, '08:00', '00:00'),
  /** No hours at all: closed whatever the time. */
  closed: [],
} satisfies Record<string, OpeningSpan[]>;

export type HoursKey = keyof typeof HOURS;

/**
 * Wall-clock time in a store's own time zone, from Intl alone (no tz library).
 * Formatters are cached per zone: building one costs far more than using it.
 */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface LocalTime {
  /** Local calendar date, `YYYY-MM-DD`. */
  readonly date: string;
  readonly day: Weekday;
  /** Minutes since local midnight, 0..1439. */
  readonly minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The last answer per zone: a listing asks for the same instant once per store. */
const lastAnswer = new Map<string, { minute: number; local: LocalTime }>();

export function localTime(at: Date, timeZone: string): LocalTime {
  const minute = Math.floor(at.getTime() / 60_000);
  const last = lastAnswer.get(timeZone);
  if (last && last.minute === minute) return last.local;
  const local = computeLocalTime(at, timeZone);
  lastAnswer.set(timeZone, { minute, local });
  return local;
}

function computeLocalTime(at: Date, timeZone: string): LocalTime {
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(at)) parts[p.type] = p.value;
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  return { date, day: weekdayOf(date), minute: Number(parts.hour) * 60 + Number(parts.minute) };
}

/** Weekday of a calendar date (the date itself carries no zone). */
export function weekdayOf(date: string): Weekday {
  const sundayFirst = new Date(`${date}T00:00:00Z`).getUTCDay();
  return WEEKDAYS[(sundayFirst + 6) % 7]!;
}

export function addDays(date: string, days: number): string {
  const t = new Date(`${date}T00:00:00Z`).getTime() + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/** `HH:MM` (also `24:00`) -> minutes since midnight. */
export function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

/**
 * The instant when the wall clock in `timeZone` shows `date` at `minute`.
 * With `offsetHint` (the zone's offset at a nearby instant) one look-up usually settles it.
 * Otherwise guess with UTC and correct by the zone's offset at the guess; a second pass settles
 * DST edges. A wall time skipped by a DST jump resolves to a nearby real instant.
 */
export function instantOf(date: string, minute: number, timeZone: string, offsetHint?: number): Date {
  const wall = new Date(`${date}T00:00:00Z`).getTime() + minute * 60_000;
  if (offsetHint !== undefined) {
    const guess = new Date(wall - offsetHint);
    const local = localTime(guess, timeZone);
    if (local.date === date && local.minute === minute) return guess;
  }
  let guess = wall;
  for (let i = 0; i < 2; i++) guess = wall - zoneOffsetMs(new Date(guess), timeZone);
  return new Date(guess);
}

/** How far the zone's wall clock is ahead of UTC at `at`, in milliseconds. */
export function zoneOffsetMs(at: Date, timeZone: string): number {
  const local = localTime(at, timeZone);
  const asUtc = new Date(`${local.date}T00:00:00Z`).getTime() + local.minute * 60_000;
  const truncated = at.getTime() - (at.getTime() % 60_000);
  return asUtc - truncated;
}

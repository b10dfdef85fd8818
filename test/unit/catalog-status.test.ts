import { describe, expect, it } from 'vitest';
import { instantOf, localTime } from '../../src/domain/catalog/local-time.js';
import type { OpeningSpan } from '../../src/domain/catalog/model.js';
import { memoisedStatus, storeStatus } from '../../src/domain/catalog/status.js';
import { makeStore } from './catalog-fixtures.js';

// Kuwait is UTC+3 all year; 2026-11-23 is a Monday, 2026-11-27 a Friday, 2026-12-25 a Friday.
const kw = (local: string) => new Date(`${local}+03:00`);
const ALL_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const daily = (open: string, close: string): OpeningSpan[] => ALL_DAYS.map((day) => ({ day, open, close }));

describe('local time in the store time zone', () => {
  it('gives the local date, weekday and minute', () => {
    expect(localTime(new Date('2026-11-23T21:30:00Z'), 'Asia/Kuwait')).toEqual({
      date: '2026-11-24',
      day: 'tue',
      minute: 30,
    });
    expect(localTime(new Date('2026-11-23T21:30:00Z'), 'Asia/Dubai')).toEqual({
      date: '2026-11-24',
      day: 'tue',
      minute: 90,
    });
  });

  it('turns a wall time back into an instant, across daylight saving', () => {
    expect(instantOf('2026-07-01', 9 * 60, 'Europe/London').toISOString()).toBe('2026-07-01T08:00:00.000Z');
    expect(instantOf('2026-12-01', 9 * 60, 'Europe/London').toISOString()).toBe('2026-12-01T09:00:00.000Z');
  });
});

describe('storeStatus', () => {
  const store = makeStore({ opening_hours: daily('10:00', '23:00') });

  it('when inside the opening hours, then open and accepting orders', () => {
    expect(storeStatus(store, kw('2026-11-23T12:00'))).toEqual({
      status: 'open',
      accepting_orders: true,
      closed_reason: null,
      opens_at: null,
    });
  });

  it('when outside the hours, then closed, with the next opening', () => {
    const s = storeStatus(store, kw('2026-11-23T23:00'));
    expect(s).toEqual({
      status: 'closed',
      accepting_orders: false,
      closed_reason: 'outside_hours',
      opens_at: kw('2026-11-24T10:00').toISOString(),
    });
    expect(storeStatus(store, kw('2026-11-23T09:59')).status).toBe('closed');
  });

  it('reads the hours in the store time zone, not UTC', () => {
    const dubai = makeStore({ time_zone: 'Asia/Dubai', opening_hours: daily('10:00', '23:00') });
    const at = new Date('2026-11-23T06:30:00Z'); // 09:30 in Kuwait, 10:30 in Dubai
    expect(storeStatus(store, at).status).toBe('closed');
    expect(storeStatus(dubai, at).status).toBe('open');
  });

  it('follows daylight saving in zones that have it', () => {
    const london = makeStore({ time_zone: 'Europe/London', opening_hours: daily('09:00', '17:00') });
    expect(storeStatus(london, new Date('2026-07-01T08:30:00Z')).status).toBe('open'); // 09:30 BST
    expect(storeStatus(london, new Date('2026-12-01T08:30:00Z')).status).toBe('closed'); // 08:30 GMT
    expect(storeStatus(london, new Date('2026-07-01T17:00:00Z')).opens_at).toBe('2026-07-02T08:00:00.000Z');
  });

  describe('a span that crosses midnight (Friday 18:00 to 03:00)', () => {
    const late = makeStore({ opening_hours: [{ day: 'fri', open: '18:00', close: '03:00' }] });

    it('is open on Friday evening and after midnight into Saturday', () => {
      expect(storeStatus(late, kw('2026-11-27T18:00')).status).toBe('open');
      expect(storeStatus(late, kw('2026-11-28T01:30')).status).toBe('open');
      expect(storeStatus(late, kw('2026-11-28T02:59')).status).toBe('open');
    });

    it('closes at the close time and is not open early Friday (no Thursday span)', () => {
      expect(storeStatus(late, kw('2026-11-28T03:00')).status).toBe('closed');
      expect(storeStatus(late, kw('2026-11-27T01:30')).status).toBe('closed');
      expect(storeStatus(late, kw('2026-11-28T03:00')).opens_at).toBe(kw('2026-12-04T18:00').toISOString());
    });
  });

  it('treats 00:00-24:00 and equal open/close as the whole day', () => {
    const fullDay = makeStore({ opening_hours: [{ day: 'mon', open: '00:00', close: '24:00' }] });
    expect(storeStatus(fullDay, kw('2026-11-23T00:00')).status).toBe('open');
    expect(storeStatus(fullDay, kw('2026-11-23T23:59')).status).toBe('open');
    expect(storeStatus(fullDay, kw('2026-11-24T00:00')).status).toBe('closed');
    const sixToSix = makeStore({ opening_hours: [{ day: 'mon', open: '06:00', close: '06:00' }] });
    expect(storeStatus(sixToSix, kw('2026-11-24T05:59')).status).toBe('open');
    expect(storeStatus(sixToSix, kw('2026-11-24T06:00')).status).toBe('closed');
  });

  it('with no opening hours at all, then closed whatever the time, with no next opening', () => {
    const never = makeStore({ opening_hours: [] });
    expect(storeStatus(never, kw('2026-11-23T12:00'))).toEqual({
      status: 'closed',
      accepting_orders: false,
      closed_reason: 'outside_hours',
      opens_at: null,
    });
  });

  describe('dated closures (local dates)', () => {
    const allDay = makeStore({
      opening_hours: daily('00:00', '24:00'),
      closures: [{ date: '2026-12-25', reason: 'Holiday' }],
    });

    it('close the whole local date and reopen at local midnight', () => {
      expect(storeStatus(allDay, kw('2026-12-24T23:59')).status).toBe('open');
      const s = storeStatus(allDay, kw('2026-12-25T00:00'));
      expect(s).toMatchObject({
        status: 'closed',
        closed_reason: 'closure',
        opens_at: kw('2026-12-26T00:00').toISOString(),
      });
      // 2026-12-24T22:30Z is already the 25th in Kuwait.
      expect(storeStatus(allDay, new Date('2026-12-24T22:30:00Z')).status).toBe('closed');
    });

    it('cut an overnight shift of the day before at midnight, and cancel the shift that starts on the date', () => {
      const late = makeStore({
        opening_hours: [
          { day: 'thu', open: '18:00', close: '03:00' },
          { day: 'fri', open: '18:00', close: '03:00' },
        ],
        closures: [{ date: '2026-12-25', reason: 'Holiday' }],
      });
      expect(storeStatus(late, kw('2026-12-24T23:00')).status).toBe('open');
      expect(storeStatus(late, kw('2026-12-25T01:00')).closed_reason).toBe('closure');
      expect(storeStatus(late, kw('2026-12-26T01:00'))).toMatchObject({
        status: 'closed',
        closed_reason: 'outside_hours',
      });
    });
  });

  describe('snooze', () => {
    const open = makeStore({ opening_hours: daily('00:00', '24:00'), snoozed_until: '2026-11-23T13:00:00Z' });

    it('when snoozed, then closed until the snooze ends', () => {
      expect(storeStatus(open, new Date('2026-11-23T12:59:00Z'))).toEqual({
        status: 'closed',
        accepting_orders: false,
        closed_reason: 'snoozed',
        opens_at: '2026-11-23T13:00:00.000Z',
      });
    });

    it('when the snooze has expired, then open again', () => {
      expect(storeStatus(open, new Date('2026-11-23T13:00:00Z')).status).toBe('open');
    });

    it('a snooze that ends after closing time reopens with the next opening hours', () => {
      const s = makeStore({
        opening_hours: daily('10:00', '23:00'),
        snoozed_until: kw('2026-11-24T00:30').toISOString(),
      });
      expect(storeStatus(s, kw('2026-11-23T20:00')).opens_at).toBe(kw('2026-11-24T10:00').toISOString());
    });
  });

  describe('busy and accepting-orders flags', () => {
    it('when busy during opening hours, then busy and still accepting orders', () => {
      expect(storeStatus(makeStore({ busy: true }), kw('2026-11-23T12:00'))).toMatchObject({
        status: 'busy',
        accepting_orders: true,
      });
    });

    it('when busy outside opening hours, then closed', () => {
      expect(storeStatus(makeStore({ busy: true }), kw('2026-11-23T08:00')).status).toBe('closed');
    });

    it('when the restaurant stops accepting orders, then it is closed (paused) with no known reopening', () => {
      const paused = { status: 'closed', accepting_orders: false, closed_reason: 'paused', opens_at: null };
      expect(storeStatus(makeStore({ accepting_orders: false }), kw('2026-11-23T12:00'))).toEqual(paused);
      expect(storeStatus(makeStore({ accepting_orders: false, busy: true }), kw('2026-11-23T12:00'))).toEqual(paused);
      expect(storeStatus(makeStore({ accepting_orders: false }), kw('2026-11-23T08:00'))).toEqual(paused);
    });
  });
});

describe('memoisedStatus', () => {
  it('answers like storeStatus, reusing the answer within a minute', () => {
    const statusOf = memoisedStatus();
    const store = makeStore({ opening_hours: daily('10:00', '23:00') });
    const first = statusOf(store, kw('2026-11-23T22:59:00'));
    expect(first).toEqual(storeStatus(store, kw('2026-11-23T22:59:00')));
    expect(statusOf(store, kw('2026-11-23T22:59:59'))).toBe(first);
    expect(statusOf(store, kw('2026-11-23T23:00:00')).status).toBe('closed');
  });

  it('does not reuse an answer across a snooze that ends inside the minute', () => {
    const statusOf = memoisedStatus();
    const store = makeStore({ opening_hours: daily('00:00', '24:00'), snoozed_until: '2026-11-23T13:00:30Z' });
    expect(statusOf(store, new Date('2026-11-23T13:00:10Z')).status).toBe('closed');
    expect(statusOf(store, new Date('2026-11-23T13:00:40Z')).status).toBe('open');
  });
});

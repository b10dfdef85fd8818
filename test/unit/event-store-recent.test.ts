import { describe, expect, it } from 'vitest';
import { RecentEvents, type EventTuple } from '../../src/adapters/sqlite/event-store-recent.js';

const row = (position: number, stream = 'order-1', revision = position, type = 'E'): EventTuple => [
  position,
  stream,
  revision,
  `id-${position}`,
  type,
  '{}',
  '{}',
  0,
];
const positions = (rows: EventTuple[] | undefined) => rows?.map((r) => r[0]);

describe('recent events of the embedded log', () => {
  it('answers a range it holds entirely, and nothing it holds only in part', () => {
    const recent = new RecentEvents();
    recent.add([row(5), row(6)]);
    recent.add([row(7)]);
    expect(positions(recent.rowsBetween(4, 7, 100))).toEqual([5, 6, 7]);
    expect(positions(recent.rowsBetween(5, 6, 100))).toEqual([6]);
    expect(positions(recent.rowsBetween(4, 7, 2))).toEqual([5, 6]);
    expect(recent.rowsBetween(3, 7, 100)).toBeUndefined(); // position 4 is not here
    expect(recent.rowsBetween(4, 8, 100)).toBeUndefined(); // nor 8
    expect(recent.rowsBetween(7, 7, 100)).toEqual([]);
  });

  it('starts again after a position another process took, so it never skips it', () => {
    const recent = new RecentEvents();
    recent.add([row(1), row(2)]);
    recent.add([row(4)]); // 3 was another process's commit
    expect(recent.rowsBetween(2, 4, 100)).toBeUndefined();
    expect(recent.rowsBetween(0, 4, 100)).toBeUndefined();
    expect(positions(recent.rowsBetween(3, 4, 100))).toEqual([4]);
  });

  it('keeps the newest rows up to its capacity (and an eighth more between drops)', () => {
    const recent = new RecentEvents(8);
    for (let p = 1; p <= 20; p++) recent.add([row(p)]);
    expect(positions(recent.rowsBetween(19, 20, 100))).toEqual([20]);
    expect(positions(recent.rowsBetween(12, 20, 100))).toHaveLength(8);
    expect(recent.rowsBetween(10, 20, 100)).toBeUndefined();
    expect(new RecentEvents(0).rowsBetween(0, 1, 100)).toBeUndefined();
  });

  it('filters as the SQL does: stream prefixes, then event types', () => {
    const recent = new RecentEvents();
    recent.add([
      row(1, 'order-1', 0, 'OrderPlaced'),
      row(2, 'rider-1', 0, 'RiderMoved'),
      row(3, 'order-2', 0, 'OrderAccepted'),
    ]);
    expect(positions(recent.rowsBetween(0, 3, 100, { streamPrefixes: ['order-'] }))).toEqual([1, 3]);
    expect(
      positions(
        recent.rowsBetween(0, 3, 100, {
          streamPrefixes: ['order-', 'rider-'],
          eventTypes: ['RiderMoved', 'OrderAccepted'],
        }),
      ),
    ).toEqual([2, 3]);
    expect(positions(recent.rowsBetween(0, 3, 1, { eventTypes: ['OrderAccepted'] }))).toEqual([3]);
  });

  it('leaves out the rows a bounded stream trimmed, and only those', () => {
    const recent = new RecentEvents();
    recent.add([row(1, 'rider-1', 0), row(2, 'rider-2', 0), row(3, 'rider-1', 1), row(4, 'rider-1', 2)]);
    recent.trim('rider-1', 1);
    expect(positions(recent.rowsBetween(0, 4, 100))).toEqual([2, 4]);
    expect(positions(recent.rowsBetween(0, 4, 1))).toEqual([2]);
  });
});

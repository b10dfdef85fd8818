import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule.js';

const LAST = new Date('2026-10-12T08:00:00.000Z');
const plus = (ms: number) => new Date(LAST.getTime() + ms);
const MIN = 60_000;
const HOUR = 60 * MIN;

describe('nextAttemptAt', () => {
  it.each([
    [0, 0, 'attempt 1 at once'],
    [1, 1 * MIN, 'attempt 2 one minute after the 1st failure'],
    [2, 5 * MIN, 'attempt 3 five minutes after the 2nd failure'],
    [3, 30 * MIN, 'attempt 4 thirty minutes after the 3rd failure'],
    [4, 2 * HOUR, 'attempt 5 two hours after the 4th failure'],
    [5, 6 * HOUR, 'attempt 6 six hours after the 5th failure'],
    [6, 12 * HOUR, 'attempt 7 twelve hours after the 6th failure'],
  ])('when %i attempts have failed, then the next is due %i ms later (%s)', (made, wait) => {
    expect(nextAttemptAt(made, LAST)).toEqual(plus(wait));
  });

  it('when the 7th attempt has failed, then there is no next attempt (the delivery is failed)', () => {
    expect(MAX_ATTEMPTS).toBe(7);
    expect(nextAttemptAt(7, LAST)).toBeNull();
    expect(nextAttemptAt(8, LAST)).toBeNull();
  });

  it('when every attempt fails at once, then the whole schedule spans 20 h 36 min', () => {
    let at = LAST;
    for (let made = 0; made < MAX_ATTEMPTS; made++) at = nextAttemptAt(made, at)!;
    expect(at.getTime() - LAST.getTime()).toBe(20 * HOUR + 36 * MIN);
    expect(RETRY_DELAYS_MS).toHaveLength(MAX_ATTEMPTS);
  });

  it('when attemptsMade is negative or fractional, then it refuses', () => {
    expect(() => nextAttemptAt(-1, LAST)).toThrow(RangeError);
    expect(() => nextAttemptAt(1.5, LAST)).toThrow(RangeError);
  });

  it('when called, then the given date is not mutated', () => {
    const last = new Date(LAST);
    nextAttemptAt(3, last);
    expect(last).toEqual(LAST);
  });
});

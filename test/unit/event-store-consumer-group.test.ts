import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { ev, eventually } from '../contract/event-store.contract.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'consumer-group-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The position write, run when the test says (`due()`); `scheduled` counts the writes asked for. */
function manualPositionWrites() {
  let waiting: (() => void) | undefined;
  let scheduled = 0;
  return {
    deferral: {
      delayMs: 100,
      schedule(run: () => void) {
        scheduled++;
        waiting = run;
        return () => (waiting = undefined);
      },
    },
    get scheduled() {
      return scheduled;
    },
    due() {
      const run = waiting;
      waiting = undefined;
      run?.();
    },
  };
}

describe('SQLite consumer group positions', () => {
  it('writes the settled position once per delay, not once per event, and at stop', async () => {
    const file = join(dir, 'events.db');
    const writes = manualPositionWrites();
    const store = new SqliteEventStore({ file, positionWrites: writes.deferral });
    // Another connection to the same file sees only what was written.
    const other = new SqliteEventStore({ file });
    const options = { group: 'g', filter: { streamPrefixes: ['s-'] } };
    const written = () => other.consumerGroup(options).position();
    const group = store.consumerGroup(options);
    const seen: string[] = [];
    await group.start(async (e) => {
      seen.push(e.type);
      return 'ack';
    });

    let last = 0n;
    for (const type of ['A', 'B', 'C'])
      last = (await store.append('s-1', [ev(type)], { expectedRevision: 'any' })).position;
    await eventually(async () => (await group.position()) === last);

    // Given three events settled one page at a time, when the delay has not passed,
    expect(seen).toEqual(['A', 'B', 'C']);
    // then one write waits for it, and none has been made yet;
    expect(writes.scheduled).toBe(1);
    expect(await written()).toBe(0n);
    // when it passes, the newest settled position is written.
    writes.due();
    expect(await written()).toBe(last);

    // Given more settled events, when the group stops, their position is written at once.
    last = (await store.append('s-1', [ev('D')], { expectedRevision: 'any' })).position;
    await eventually(async () => (await group.position()) === last);
    expect(await written()).toBeLessThan(last);
    await group.stop();
    expect(await written()).toBe(last);

    // A restarted group goes on after it: nothing is delivered twice.
    const again = store.consumerGroup(options);
    const redelivered: string[] = [];
    await again.start(async (e) => {
      redelivered.push(e.type);
      return 'ack';
    });
    last = (await store.append('s-1', [ev('E')], { expectedRevision: 'any' })).position;
    await eventually(async () => (await again.position()) === last);
    expect(redelivered).toEqual(['E']);
    await store.close();
    await other.close();
  });
});

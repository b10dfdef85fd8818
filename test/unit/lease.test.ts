import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { Lease, holderMayBeAlive, type LeaseOptions } from '../../src/application/lease.js';
import type { EventStore } from '../../src/ports/event-store.js';
import { recordingAppends } from '../support/recording-store.js';
import { jsonLineSink, type LogLine } from '../support/log-sink.js';
import { createLogger } from '../../src/shared/logger.js';

let dir: string;
let store: SqliteEventStore;
let now: number;
const leases: Lease[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lease-'));
  store = new SqliteEventStore({ file: join(dir, 'events.db'), synchronous: 'NORMAL' });
  now = 1_000;
});
afterEach(async () => {
  for (const l of leases.splice(0)) await l.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A lease on the shared store (or `events` over it) with the test's clock; its log says what its work was told. */
function lease(holder: string, options: Partial<LeaseOptions> = {}, events: EventStore = store) {
  const log: string[] = [];
  const l = new Lease(
    { events },
    {
      name: 'work',
      holder,
      ttlMs: 10_000,
      tickMs: 2_000,
      now: () => now,
      timer: false,
      mayBeAlive: () => true,
      ...options,
    },
  );
  leases.push(l);
  // These tests are about who holds the lease: each waits for the work's start too (see the test of a slow start).
  const started = l
    .start({
      onAcquired: async () => void log.push('acquired'),
      onLost: async () => void log.push('lost'),
    })
    .then(() => l.settled());
  return { lease: l, log, started };
}

describe('Lease', () => {
  it('when two replicas start, then the first holds the lease and the second stands by', async () => {
    const a = lease('host/1/a');
    await a.started;
    const b = lease('host/2/b');
    await b.started;
    expect([a.lease.held(), b.lease.held()]).toEqual([true, false]);
    expect([a.log, b.log]).toEqual([['acquired'], []]);
    // Renewals keep it: ticks of both, well past the TTL in all.
    for (let i = 0; i < 10; i++) {
      now += 2_000;
      await a.lease.tick();
      await b.lease.tick();
    }
    expect([a.lease.held(), b.lease.held()]).toEqual([true, false]);
    expect(b.log).toEqual([]);
  });

  it('when the holder stops renewing, then it stops relying on the lease one tick before the TTL, and a standby takes over only once the TTL has passed', async () => {
    const a = lease('host/1/a');
    await a.started;
    const b = lease('host/2/b');
    await b.started;
    // a is frozen (no more ticks); b looks every tick.
    now += 7_999;
    await b.lease.tick();
    expect(a.lease.held()).toBe(true);
    now += 1; // 8 s after a's last renewal began: TTL minus one tick
    expect(a.lease.held()).toBe(false);
    now += 1_999;
    await b.lease.tick(); // b first saw a's record at 1 000: 9 999 ms ago
    expect(b.lease.held()).toBe(false);
    now += 1;
    await b.lease.tick();
    expect(b.lease.held()).toBe(true);
    expect(b.log).toEqual(['acquired']);
    // a wakes up: its renewal finds b's takeover and it gives up.
    await a.lease.tick();
    expect(a.log).toEqual(['acquired', 'lost']);
    expect(a.lease.held()).toBe(false);
  });

  it('when the holder stops, then it stops its work first and releases, and a standby takes over at its next look', async () => {
    const a = lease('host/1/a');
    await a.started;
    const b = lease('host/2/b');
    await b.started;
    await a.lease.stop();
    expect(a.log).toEqual(['acquired', 'lost']);
    await b.lease.tick();
    expect(b.lease.held()).toBe(true);
    const types = (await store.readStream('lease-work')).map((e) => e.type);
    expect(types).toEqual(['LeaseAcquired', 'LeaseReleased', 'LeaseAcquired']);
  });

  it('when its work is slow to start, then start resolves once the lease is held, renewals go on, and a stop aborts that start before its onLost', async () => {
    const lines: LogLine[] = [];
    const steps: string[] = [];
    const l = new Lease(
      { events: store, logger: createLogger({ level: 'info', destination: jsonLineSink(lines) }) },
      { name: 'work', holder: 'host/1/a', ttlMs: 10_000, tickMs: 2_000, now: () => now, timer: false },
    );
    leases.push(l);
    let settled = false;
    await l.start({
      // Like the webhook sender waiting for its delivery log to catch up, until the lease is lost.
      onAcquired: (signal) => {
        steps.push('starting');
        return new Promise((_, reject) =>
          signal.addEventListener('abort', () => {
            steps.push('aborted');
            reject(signal.reason as Error);
          }),
        );
      },
      onLost: async () => void steps.push('lost'),
    });
    void l.settled().then(() => (settled = true));
    expect(l.held()).toBe(true);
    expect(steps).toEqual(['starting']);
    for (let i = 0; i < 6; i++) {
      now += 2_000;
      await l.tick();
    }
    expect(l.held(), 'renewed past the TTL while its work was starting').toBe(true);
    expect(settled).toBe(false);

    await l.stop();
    expect(steps).toEqual(['starting', 'aborted', 'lost']);
    expect(settled).toBe(true);
    expect((await store.readStream('lease-work')).at(-1)!.type).toBe('LeaseReleased');
    expect(
      lines.filter((line) => Number(line.level) >= 50),
      'an aborted start is no error',
    ).toEqual([]);
  });

  it('when it is stopped during its first look, then it releases what that look took and no renewal timer is left; started again, it takes part again', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const l = new Lease({ events: store }, { name: 'work', holder: 'host/1/a', ttlMs: 10_000, tickMs: 2_000 });
      const steps: string[] = [];
      const started = l.start({
        onAcquired: async () => void steps.push('acquired'),
        onLost: async () => void steps.push('lost'),
      });
      await l.stop();
      await started;
      expect(vi.getTimerCount(), 'timers left').toBe(0);
      expect(steps.at(-1)).toBe('lost');
      expect((await store.readStream('lease-work')).map((e) => e.type)).toEqual(['LeaseAcquired', 'LeaseReleased']);

      // Started again, it takes part again: timer, renewals, release.
      await l.start({
        onAcquired: async () => void steps.push('acquired'),
        onLost: async () => void steps.push('lost'),
      });
      expect(vi.getTimerCount(), 'timers once started again').toBe(1);
      expect(l.held()).toBe(true);
      await l.stop();
      expect(vi.getTimerCount()).toBe(0);
      expect((await store.readStream('lease-work')).map((e) => e.type)).toEqual([
        'LeaseAcquired',
        'LeaseReleased',
        'LeaseAcquired',
        'LeaseReleased',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('when start, stop and start overlap, then one timer runs, the stop released before the second start took the lease, and a last stop leaves nothing', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const l = new Lease({ events: store }, { name: 'work', holder: 'host/1/a', ttlMs: 10_000, tickMs: 2_000 });
      const steps: string[] = [];
      const callbacks = {
        onAcquired: async () => void steps.push('acquired'),
        onLost: async () => void steps.push('lost'),
      };
      await Promise.all([l.start(callbacks), l.stop(), l.start(callbacks)]);
      expect(vi.getTimerCount(), 'timers').toBe(1);
      expect(l.held()).toBe(true);
      expect((await store.readStream('lease-work')).map((e) => e.type)).toEqual([
        'LeaseAcquired',
        'LeaseReleased',
        'LeaseAcquired',
      ]);
      await l.stop();
      expect(vi.getTimerCount(), 'timers after the last stop').toBe(0);
      expect(l.held()).toBe(false);
      expect((await store.readStream('lease-work')).at(-1)!.type).toBe('LeaseReleased');
      expect(steps.at(-1)).toBe('lost');
    } finally {
      vi.useRealTimers();
    }
  });

  it('when the holder is a process of this host that no longer runs, then the lease is taken at once', async () => {
    const dead = lease('host/1/dead', { mayBeAlive: () => true });
    await dead.started;
    const b = lease('host/2/b', { mayBeAlive: (h) => h !== 'host/1/dead' });
    await b.started;
    expect(b.lease.held()).toBe(true);
  });

  it('when two standbys see the TTL pass at once, then exactly one takes over', async () => {
    const a = lease('host/1/a');
    await a.started;
    const b = lease('host/2/b');
    const c = lease('host/3/c');
    await Promise.all([b.started, c.started]);
    now += 10_000;
    await Promise.all([b.lease.tick(), c.lease.tick()]);
    expect([b.lease.held(), c.lease.held()].filter(Boolean)).toHaveLength(1);
  });

  it('keeps the lease stream short however long it is renewed', async () => {
    const a = lease('host/1/a');
    await a.started;
    for (let i = 0; i < 50; i++) {
      now += 2_000;
      await a.lease.tick();
    }
    const events = await store.readStream('lease-work');
    expect(events.length).toBeLessThanOrEqual(20);
    expect(events.at(-1)!.revision).toBe(50);
  });

  it("when it acquires, renews and releases, then each of its appends asks the store only for 'ordered' durability", async () => {
    const { events, appends } = recordingAppends(store);
    const a = lease('host/1/a', {}, events);
    await a.started;
    now += 2_000;
    await a.lease.tick();
    await a.lease.stop();
    expect(appends.flatMap((x) => x.types.map((type) => [type, x.durability]))).toEqual([
      ['LeaseAcquired', 'ordered'],
      ['LeaseRenewed', 'ordered'],
      ['LeaseReleased', 'ordered'],
    ]);
  });
});

describe('holderMayBeAlive', () => {
  const self = `${hostname()}/${process.pid}/self`;
  it('given a holder of this host whose process is gone, then false', () => {
    expect(holderMayBeAlive(`${hostname()}/2147483646/x`, self)).toBe(false);
  });
  it('given an earlier start of this very pid (a restarted container), then false; this one itself, then true', () => {
    expect(holderMayBeAlive(`${hostname()}/${process.pid}/earlier`, self)).toBe(false);
    expect(holderMayBeAlive(self, self)).toBe(true);
  });
  it('given a running process of this host, or any other host, then true', () => {
    expect(holderMayBeAlive(`${hostname()}/${process.ppid}/x`, self)).toBe(true);
    expect(holderMayBeAlive(`another-host/1/x`, self)).toBe(true);
  });
});

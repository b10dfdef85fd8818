import { describe, expect, it } from 'vitest';
import { watchStorage, STORAGE_PROBE_STREAM } from '../../src/composition/storage-watch.js';
import { StorageUnavailableError, type EventStore } from '../../src/ports/event-store.js';
import type { Logger } from '../../src/shared/logger.js';

/** A store whose whenDurable answers as the test says, and that records its appends' streams. */
function store(durable: () => Promise<void>) {
  const appended: string[] = [];
  const events = {
    whenDurable: durable,
    append: async (stream: string) => {
      appended.push(stream);
      return { nextExpectedRevision: 0, position: 1n };
    },
    setStreamMaxCount: async () => undefined,
  } as unknown as EventStore;
  return { events, appended };
}
/** A whenDurable that fails with StorageUnavailableError (`reason`) while `failing` is set. */
function failingSync(reason: StorageUnavailableError['reason']) {
  const disk = {
    failing: false,
    whenDurable: () =>
      disk.failing
        ? Promise.reject(new StorageUnavailableError('event store', reason, { cause: new Error('EIO') }))
        : Promise.resolve(),
  };
  return disk;
}
const quiet = { error: () => undefined, info: () => undefined } as unknown as Logger;
const clock = { now: () => new Date('2026-11-28T10:00:00Z') };

describe('storage watch: whenDurable', () => {
  it('when its fsync fails with the storage unavailable, then readiness probes with a write until one works', async () => {
    const disk = failingSync('io');
    const { events, appended } = store(disk.whenDurable);
    const watch = watchStorage(events, { clock, logger: quiet });
    await watch.check();
    expect(appended).toEqual([]);
    disk.failing = true;
    await expect(watch.events.whenDurable()).rejects.toBeInstanceOf(StorageUnavailableError);
    disk.failing = false;
    await watch.check();
    expect(appended).toEqual([STORAGE_PROBE_STREAM]);
    await watch.check();
    expect(appended).toEqual([STORAGE_PROBE_STREAM]); // the probe worked: writes work again
  });

  it('when no write has failed but what the log holds cannot be made durable, then readiness fails at once', async () => {
    const disk = failingSync('unsynced');
    disk.failing = true;
    const { events, appended } = store(disk.whenDurable);
    const watch = watchStorage(events, { clock, logger: quiet });
    await expect(watch.check()).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(appended).toEqual([]);
    // From then on it probes with a write, as after a refused one.
    disk.failing = false;
    await watch.check();
    expect(appended).toEqual([STORAGE_PROBE_STREAM]);
  });

  it('when a write has failed, then a wait that resolves does not count as writes working again', async () => {
    const { events, appended } = store(() => Promise.resolve());
    let fail = true;
    const failing = {
      ...events,
      append: async (...args: Parameters<EventStore['append']>) => {
        if (fail) throw new StorageUnavailableError('event store', 'full', { cause: new Error('ENOSPC') });
        return events.append(...args);
      },
    };
    const watch = watchStorage(failing, { clock, logger: quiet });
    await expect(watch.events.append('s', [], { expectedRevision: 'any' })).rejects.toBeInstanceOf(
      StorageUnavailableError,
    );
    await watch.events.whenDurable();
    await expect(watch.check()).rejects.toBeInstanceOf(StorageUnavailableError);
    fail = false;
    await watch.check();
    expect(appended).toEqual([STORAGE_PROBE_STREAM]);
  });
});

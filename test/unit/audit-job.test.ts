import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { AUDIT_STREAM, AuditJob } from '../../src/application/audit/audit-job.js';
import type { AuditReport } from '../../src/application/audit/verify.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { deferred } from '../support/deferred.js';

const logger = createLogger({ level: 'silent', pretty: false });

/** A report with `count` differences of about 2 KB each. */
const bigReport = (count: number): AuditReport => ({
  source: 'test',
  head: 12345678901234567890n,
  readModels: [
    {
      projection: 'orders',
      collection: 'orders',
      replayed: count,
      served: count,
      servedPosition: 7n,
      differences: count,
    },
  ],
  differenceCount: count,
  differences: Array.from({ length: count }, (_, i) => ({
    collection: 'orders',
    id: `ord_${i}`,
    kind: 'different' as const,
    fields: [{ path: 'note', expected: 'x'.repeat(1000), served: 'y'.repeat(1000) }],
  })),
  behind: [],
});

describe('AuditJob: the outcome every replica shows', () => {
  let dir: string;
  let events: SqliteEventStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-job-'));
    events = new SqliteEventStore({ file: path.join(dir, 'events.db'), synchronous: 'NORMAL' });
  });
  afterEach(async () => {
    await events.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const job = (replica: string, report: AuditReport) =>
    new AuditJob({ run: async () => report, events, replica, clock: new ManualClock(), logger });

  it('given a report too large for one event, when it finishes, then the recorded outcome keeps the first differences and the whole count', async () => {
    const ran = job('host-a/1/aaaa', bigReport(500));
    expect(await ran.start('session-1')).toBe(true);
    await ran.settled();

    const [finished] = await events.readStream(AUDIT_STREAM, { backwards: true, maxCount: 1 });
    expect(finished?.type).toBe('AuditFinished');
    expect(Buffer.byteLength(JSON.stringify(finished!.data))).toBeLessThan(600 * 1024);

    const seen = await job('host-b/2/bbbb', bigReport(0)).state();
    expect(seen).toMatchObject({ state: 'done', replica: 'host-a/1/aaaa', by: 'session-1' });
    if (seen.state !== 'done') throw new Error('not done');
    expect(seen.report.head).toBe(12345678901234567890n);
    expect(seen.report.readModels[0]!.servedPosition).toBe(7n);
    expect(seen.report.differenceCount).toBe(500);
    expect(seen.report.differences.length).toBeGreaterThan(100);
    expect(seen.report.differences.length).toBeLessThan(500);
    expect(seen.report.differences[0]).toEqual(bigReport(1).differences[0]);
  });

  it('given a run that fails, when another replica looks, then it sees the failure and its reason', async () => {
    const failing = new AuditJob({
      run: () => Promise.reject(new Error('read models unreachable')),
      events,
      replica: 'host-a/1/aaaa',
      clock: new ManualClock(),
      logger,
    });
    await failing.start('session-2');
    await failing.settled();
    expect(await job('host-b/2/bbbb', bigReport(0)).state()).toMatchObject({
      state: 'failed',
      error: 'read models unreachable',
      replica: 'host-a/1/aaaa',
    });
  });

  it('given an audit held before its run, when start resolves, then a replica of another host sees it running; cancelled, it records one outcome', async () => {
    const { promise: held, resolve: entered } = deferred();
    const running = new AuditJob({
      run: async () => bigReport(0),
      gate: () => {
        entered();
        return new Promise<void>(() => {});
      },
      events,
      replica: 'host-a/1/aaaa',
      clock: new ManualClock(),
      logger,
    });
    expect(await running.start('session-3')).toBe(true);
    expect(await job('host-b/2/bbbb', bigReport(0)).state()).toMatchObject({
      state: 'running',
      replica: 'host-a/1/aaaa',
    });
    expect(await running.start('session-4')).toBe(false);
    await held;
    await running.cancel();
    const types = (await events.readStream(AUDIT_STREAM)).map((e) => [e.type, e.data.outcome]);
    expect(types).toEqual([
      ['AuditStarted', undefined],
      ['AuditFinished', 'cancelled'],
    ]);
  });

  it('given a run that has returned its report, when cancel comes at once, then the outcome recorded is done, once, before cancel resolves', async () => {
    const ran = job('host-a/1/aaaa', bigReport(2));
    expect(await ran.start('session-5')).toBe(true);
    await ran.cancel();
    const recorded = (await events.readStream(AUDIT_STREAM)).map((e) => [e.type, e.data.outcome]);
    expect(recorded).toEqual([
      ['AuditStarted', undefined],
      ['AuditFinished', 'done'],
    ]);
  });

  it('given an audit event that cannot be read, when a replica looks, then it shows its own newest audit instead of failing', async () => {
    await events.append(
      AUDIT_STREAM,
      [{ type: 'AuditFinished', data: { outcome: 'done', report: { head: 'x' } }, metadata: { schema_version: 1 } }],
      { expectedRevision: 'any' },
    );
    expect(await job('host-b/2/bbbb', bigReport(0)).state()).toEqual({ state: 'idle' });
  });

  it('given no audit yet, when a replica looks, then it is idle', async () => {
    expect(await job('host-b/2/bbbb', bigReport(0)).state()).toEqual({ state: 'idle' });
  });
});

import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedByReadModels, verifyReadModels } from '../../src/application/audit/verify.js';
import { startTestService, type TestService } from '../support/service.js';
import { placeOrder } from '../support/orders.js';
import { deferred } from '../support/deferred.js';

// The console's audit in its worker thread. The worker runs compiled (dist/, as in production):
// `npm test` builds first; run alone, this needs `npm run build`. CI must run it.
const RUNNER = new URL('../../dist/src/composition/audit-runner.js', import.meta.url);
const built = fs.existsSync(new URL('../../dist/src/composition/audit-worker.js', import.meta.url));
if (!built && process.env.CI !== 'true')
  console.warn('!!! SKIPPED the audit worker test: dist/ has no audit-worker.js (npm run build)');
type Runner = typeof import('../../src/composition/audit-runner.js');

describe.runIf(built || process.env.CI === 'true')('console audit in a worker thread', () => {
  let t: TestService;
  let runner: Runner;
  beforeAll(async () => {
    t = await startTestService();
    runner = (await import(RUNNER.href)) as Runner;
  });
  afterAll(() => t?.close());

  it('when the audit runs in its worker, then the report is the one the main thread would make', async () => {
    const partner = await t.partner();
    expect((await placeOrder(t.http, partner.sandbox)).status).toBe(201);
    const served = servedByReadModels(t.service.services.readModels, 'this replica');
    const deps = { events: t.stores.events, served, waitMs: 10_000, now: () => t.clock.now() };
    const audit = runner.auditRunner(deps);
    expect(audit.inWorker).toBe(true);
    const report = await audit.run();
    const here = await verifyReadModels(t.stores.events, served, { waitMs: 10_000, now: t.clock.now() });
    expect(report).toEqual(here);
    expect(report.differences).toEqual([]);
    expect(report.readModels.find((r) => r.collection === 'orders')?.replayed).toBe(1);
  });

  it('when the worker runs out of its memory, then the audit fails with a clear error and this process goes on', async () => {
    const audit = runner.auditRunner({
      events: t.stores.events,
      served: servedByReadModels(t.service.services.readModels, 'this replica'),
      waitMs: 10_000,
      now: () => t.clock.now(),
      maxMemoryMb: 1,
    });
    await expect(audit.run()).rejects.toThrow(
      /ran out of its 1 MB of memory and was stopped; the service was not affected/,
    );
    expect((await t.http.get('/healthz')).status).toBe(200);
  });
});

describe.runIf(built || process.env.CI === 'true')('console audit stopped at shutdown', () => {
  it('when the service stops while its worker runs, then the audit is cancelled and the worker is gone', async () => {
    const t = await startTestService();
    try {
      const runner = (await import(RUNNER.href)) as Runner;
      const audit = runner.auditRunner({
        events: t.stores.events,
        served: servedByReadModels(t.service.services.readModels, 'this replica'),
        waitMs: 10_000,
        now: () => t.clock.now(),
      });
      const outcome = audit.run().then(
        () => 'finished',
        (err: unknown) => err,
      );
      expect(audit.active).toBe(true);
      await audit.cancel();
      expect(await outcome).toBeInstanceOf(runner.AuditCancelledError);
      expect(audit.active).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('when the service stops while an audit is held by its gate, then stop returns and the job is cancelled', async () => {
    const { promise: reached, resolve: gated } = deferred();
    // Never released: only the cancel can end this audit.
    const t = await startTestService({
      auditGate: () => {
        gated();
        return new Promise<void>(() => {});
      },
    });
    try {
      expect(await t.service.audit.start('test')).toBe(true);
      await reached;
      expect((await t.service.audit.state()).state).toBe('running');
      await t.service.stop();
      expect((await t.service.audit.state()).state).toBe('cancelled');
      await t.service.audit.settled();
    } finally {
      await t.stores.close();
    }
  });
});

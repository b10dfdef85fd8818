import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Ends the run with one plain line, "tests: N passed, N failed, N skipped", after vitest's own summary.
 * CI tooling that does not know vitest's table reads that form; a module that failed to load or an
 * unhandled error counts as a failure, so the line never reads "0 failed" on a broken run.
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of modules) {
      let moduleFailures = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') moduleFailures += 1;
        else skipped += 1;
      }
      if (moduleFailures === 0 && module.state() === 'failed') moduleFailures = 1;
      failed += moduleFailures;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

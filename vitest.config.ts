import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // `npm run test:faults` runs the crash and fault suites (test/faults), which `npm test` leaves out.
    include: process.env.FAULTS ? ['test/faults/**/*.test.ts'] : ['test/**/*.test.ts'],
    exclude: process.env.FAULTS ? [] : ['test/faults/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's summary, then one plain closing line (see the reporter) for tools that read logs.
    reporters: ['default', './test/support/closing-line-reporter.ts'],
  },
});

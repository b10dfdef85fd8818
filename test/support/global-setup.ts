// Global test set-up: starts shared test servers once per run and provides their URLs to tests.
import type { TestProject } from 'vitest/node';
import {
  ferretDbInstalled,
  isCi,
  mongoJavaServerInstalled,
  startFerretDb,
  startMongoJavaServer,
} from './mongo-server.js';
import type { StartedMongoServer } from './mongo-server.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const servers: Array<
    [name: string, start: () => Promise<StartedMongoServer>, key: 'mongoJavaServerUrl' | 'ferretDbUrl']
  > = [];
  // A real MongoDB (MONGODB_URL) wins. Otherwise start each MongoDB wire server that was fetched,
  // and both always in CI, where a missing or broken one must fail the run instead of skipping suites.
  if (!process.env.MONGODB_URL?.trim()) {
    if (mongoJavaServerInstalled() || isCi())
      servers.push(['mongo-java-server', () => startMongoJavaServer(), 'mongoJavaServerUrl']);
    if (ferretDbInstalled() || isCi()) servers.push(['FerretDB', () => startFerretDb(), 'ferretDbUrl']);
  }
  const started = Date.now();
  const results = await Promise.allSettled(servers.map(([, start]) => start()));
  const running = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stop = async () => {
    await Promise.all(running.map((s) => s.stop()));
  };
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
  if (failed.length) {
    await stop();
    throw new AggregateError(failed, failed.map((e) => e.message).join('\n'));
  }

  project.provide('mongoJavaServerUrl', undefined);
  project.provide('ferretDbUrl', undefined);
  servers.forEach(([name, , key], i) => {
    const server = running[i]!;
    project.provide(key, server.url);
    if (process.env.TEST_VERBOSE_SETUP) console.log(`${name} at ${server.url}`);
  });
  if (process.env.TEST_VERBOSE_SETUP && servers.length) console.log(`test servers ready in ${Date.now() - started} ms`);
  return stop;
}

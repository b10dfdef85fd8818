// Global test set-up: starts shared test servers once per run and provides their URLs to tests.
import type { TestProject } from 'vitest/node';
import { isCi, mongoJavaServerInstalled, startMongoJavaServer } from './mongo-server.js';
import type { MongoJavaServer } from './mongo-server.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let mongo: MongoJavaServer | undefined;
  // A real MongoDB (MONGODB_URL) wins. Otherwise start mongo-java-server when it was fetched, and
  // always in CI, where a missing or broken one must fail the run instead of skipping suites.
  if (!process.env.MONGODB_URL?.trim() && (mongoJavaServerInstalled() || isCi())) {
    const started = Date.now();
    mongo = await startMongoJavaServer();
    if (process.env.TEST_VERBOSE_SETUP) {
      console.log(`mongo-java-server at ${mongo.url} in ${Date.now() - started} ms`);
    }
  }
  project.provide('mongoJavaServerUrl', mongo?.url);
  return async () => {
    await mongo?.stop();
  };
}

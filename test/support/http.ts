import supertest from 'supertest';
import type { App } from '../../src/http/app.js';
import { checkConformance, conformanceFailures } from './conformance.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * supertest on the app, where every response is checked against the app's own OpenAPI document
 * (failures are collected and fail the test in test/support/setup.ts).
 */
export function http(app: App) {
  const agent = supertest(app.express);
  const call = (method: Method) => (url: string) => {
    const test = agent[method](url);
    test.on('response', (res) => {
      conformanceFailures.push(...checkConformance(app.openApiDocument() as never, method, url, res));
    });
    return test;
  };
  return { get: call('get'), post: call('post'), put: call('put'), patch: call('patch'), delete: call('delete') };
}

export type Http = ReturnType<typeof http>;

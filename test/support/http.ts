import supertest from 'supertest';
import type { App } from '../../src/http/app.js';
import { isOperatorPath } from '../../src/http/openapi/document.js';
import { checkConformance, conformanceFailures } from './conformance.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * supertest on the app, where every response is checked against the app's own OpenAPI documents
 * (failures are collected and fail the test in test/support/setup.ts).
 */
export function http(app: App) {
  const agent = supertest(app.express);
  const call = (method: Method) => (url: string) => {
    const test = agent[method](url);
    test.on('response', (res) => {
      // Operator paths are documented in the operators' document, the rest in the partners'.
      const path = new URL(url, 'http://x').pathname;
      const doc = isOperatorPath(path) ? app.internalOpenApiDocument() : app.openApiDocument();
      conformanceFailures.push(...checkConformance(doc as never, method, url, res));
    });
    return test;
  };
  return { get: call('get'), post: call('post'), put: call('put'), patch: call('patch'), delete: call('delete') };
}

export type Http = ReturnType<typeof http>;

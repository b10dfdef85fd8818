import { afterEach, expect } from 'vitest';
import { conformanceFailures } from './conformance.js';

// Every HTTP response a test received must match the OpenAPI document the service serves.
afterEach(() => {
  const failures = conformanceFailures.splice(0);
  expect(failures, 'responses that do not match the OpenAPI document').toEqual([]);
});

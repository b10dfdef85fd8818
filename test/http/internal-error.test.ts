import { describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { failingApp } from '../support/failing-app.js';
import type { LogLine } from '../support/log-sink.js';
import { WrongExpectedRevisionError } from '../../src/ports/event-store.js';

describe('unexpected faults', () => {
  it('when a handler throws, then 500 internal_error without a stack, logged with the request id', async () => {
    const lines: LogLine[] = [];
    const app = failingApp(new Error('secret internals at db.ts:42'), lines);
    const res = await http(app).get('/boom');
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toContain('secret internals');
    const logged = lines.find((l) => l.msg === 'unhandled error');
    expect(logged!.request_id).toBe(res.headers['x-request-id']);
  });

  it('when a command lost to other writers on every try, then 409 concurrent_modification, not an unhandled error', async () => {
    const lines: LogLine[] = [];
    const app = failingApp(new WrongExpectedRevisionError('order-ord_1', 4, 5), lines, { errors: [409] });
    const res = await http(app).get('/boom');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('concurrent_modification');
    expect(JSON.stringify(res.body)).not.toContain('order-ord_1');
    expect(lines.filter((l) => l.msg === 'unhandled error')).toEqual([]);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catchUpShares } from '../../src/application/catch-up-worker.js';
import { streamKey, streamPart } from '../../src/ports/event-filter.js';
import { PROJECTIONS } from '../../projections/index.js';
import type { ProjectedEvent } from '../../projections/projection.js';

// A catch-up shared with a worker thread splits the log by stream part; that splits no document
// only while every read model's document id is its event's stream key.
const prefixes = [...new Set(PROJECTIONS.flatMap((p) => p.streamPrefixes))];

describe('catch-up shares', () => {
  it('only read models marked documentsSpanStreams are exempt: webhook-events (an order and its deliveries)', () => {
    expect(PROJECTIONS.filter((p) => p.documentsSpanStreams).map((p) => p.name)).toEqual(['webhook-events']);
  });

  it.each(PROJECTIONS.filter((p) => !p.documentsSpanStreams).map((p) => [p.name, p] as const))(
    'read model %s: the document of any event it reads is the stream key, so a document never spans two parts',
    (_, projection) => {
      fc.assert(
        fc.property(
          fc.constantFrom(...projection.streamPrefixes),
          fc.string({ minLength: 1 }),
          fc.string(),
          fc.object(),
          fc.nat(),
          (prefix, key, type, data, revision) => {
            const e: ProjectedEvent = {
              id: 'e',
              streamId: `${prefix}${key}`,
              type,
              revision,
              position: 1n,
              data,
              metadata: {},
            };
            const id = projection.documentId(e);
            if (id !== null) expect(id).toBe(streamKey(e.streamId, prefixes));
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('the worker and this thread read disjoint parts that cover the log, of the same streams, the worker more', () => {
    const { worker, main } = catchUpShares(prefixes);
    expect(worker.streamPrefixes).toEqual(prefixes);
    expect(main.streamPrefixes).toEqual(prefixes);
    const count = worker.partition!.count;
    expect(main.partition!.count).toBe(count);
    expect([...worker.partition!.parts, ...main.partition!.parts].sort((a, b) => a - b)).toEqual([
      ...Array(count).keys(),
    ]);
    expect(worker.partition!.parts.length).toBeGreaterThan(main.partition!.parts.length);
  });

  it('stream parts: order-X and rider-X together, spread over every part, and a partition needs whole parts', () => {
    const ids = Array.from({ length: 400 }, (_, i) => `ord_${i.toString(36)}`);
    for (const id of ids) expect(streamPart(`order-${id}`, prefixes, 8)).toBe(streamPart(`rider-${id}`, prefixes, 8));
    const counts = Array<number>(8).fill(0);
    for (const id of ids) counts[streamPart(`order-${id}`, prefixes, 8)]!++;
    for (const n of counts) expect(n).toBeGreaterThan(20);
    expect(() => streamPart('order-1', prefixes, 0)).toThrow(TypeError);
  });
});

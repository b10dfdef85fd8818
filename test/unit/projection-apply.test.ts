import { describe, expect, it } from 'vitest';
import { applyEvent, reads, type ProjectedEvent, type Projection } from '../../projections/projection.js';
import { frozen } from './projection-fixtures.js';

/** A toy read model: per customer, the list of event types seen; `skip` events are read but record nothing. */
const log: Projection<{ seen: string[] }> = {
  name: 'log',
  collection: 'log',
  streamPrefixes: ['a-', 'b-'],
  documentId: (e) => (e.type === 'Ignored' ? null : String(e.data.customer)),
  evolve: (doc, e) => (e.type === 'Skip' ? null : { seen: [...(doc?.seen ?? []), `${e.streamId}@${e.revision}`] }),
};

const event = (streamId: string, revision: number, type = 'Happened', customer = 'c1'): ProjectedEvent => ({
  id: `${streamId}-${revision}`,
  streamId,
  type,
  revision,
  position: BigInt(revision + 1),
  data: { customer },
  metadata: {},
});

describe('applyEvent', () => {
  it('when the first event of a document arrives, then it is created with seq 1 and the stream revision it absorbed', () => {
    expect(applyEvent(log, null, event('a-1', 0))).toEqual({
      id: 'c1',
      seq: 1,
      versions: { 'a-1': 0 },
      doc: { seen: ['a-1@0'] },
    });
  });

  it('when the same event is applied twice, then the second time there is nothing to write', () => {
    const once = applyEvent(log, null, event('a-1', 0))!;
    expect(applyEvent(log, once, event('a-1', 0))).toBeNull();
  });

  it('when an older revision of a stream arrives after a newer one, then it is ignored (out-of-order safety)', () => {
    let doc = applyEvent(log, null, event('a-1', 0))!;
    doc = applyEvent(log, doc, event('a-1', 1))!;
    doc = applyEvent(log, doc, event('a-1', 2))!;
    expect(applyEvent(log, doc, event('a-1', 1))).toBeNull();
    expect(applyEvent(log, doc, event('a-1', 0))).toBeNull();
    expect(doc.doc.seen).toEqual(['a-1@0', 'a-1@1', 'a-1@2']);
    expect(doc.seq).toBe(3);
  });

  it('when a document absorbs several streams, then revisions are tracked per stream and seq counts every event', () => {
    let doc = applyEvent(log, null, event('a-1', 0))!;
    doc = applyEvent(log, doc, event('b-1', 0))!;
    doc = applyEvent(log, doc, event('b-1', 1))!;
    doc = applyEvent(log, doc, event('a-1', 1))!;
    expect(doc.versions).toEqual({ 'a-1': 1, 'b-1': 1 });
    expect(doc.seq).toBe(4);
    // b-1@0 is old for b-1 even though a-1 moved on after it.
    expect(applyEvent(log, doc, event('b-1', 0))).toBeNull();
  });

  it('when a stream skips revisions (a bounded stream trimmed its oldest events), then the newer event still applies', () => {
    const doc = applyEvent(log, null, event('b-1', 40))!;
    expect(applyEvent(log, doc, event('b-1', 49))!.versions).toEqual({ 'b-1': 49 });
  });

  it('when the event belongs to no document or the projection records nothing, then nothing is written', () => {
    expect(applyEvent(log, null, event('a-1', 0, 'Ignored'))).toBeNull();
    expect(applyEvent(log, null, event('a-1', 0, 'Skip'))).toBeNull();
  });

  it('when applying, then the stored document given is not changed (a failed compare-and-set can retry with it)', () => {
    const doc = frozen(applyEvent(log, null, event('a-1', 0))!);
    const next = applyEvent(log, doc, event('a-1', 1))!;
    expect(next.seq).toBe(2);
    expect(doc).toEqual({ id: 'c1', seq: 1, versions: { 'a-1': 0 }, doc: { seen: ['a-1@0'] } });
  });

  it('when asked which streams a projection reads, then any of its prefixes matches', () => {
    expect(reads(log as Projection<unknown>, 'a-9')).toBe(true);
    expect(reads(log as Projection<unknown>, 'b-9')).toBe(true);
    expect(reads(log as Projection<unknown>, 'order-9')).toBe(false);
  });
});

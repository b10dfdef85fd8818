import { describe, expect, it } from 'vitest';
import { verifyReadModels, type ServedReadModels } from '../../src/application/audit/verify.js';
import type { StoredDocument } from '../../src/ports/read-model-store.js';
import { PROJECTIONS } from '../../projections/index.js';
import { applyEvent } from '../../projections/projection.js';
import type { OrderEvent } from '../../src/domain/order/events.js';
import type { RecordedEvent } from '../../src/ports/event-store.js';
import { ev } from './order-fixtures.js';

// An empty log: the replay has no document, so every served one is a difference ("extra").
const events = { headPosition: async () => 0n, readAll: async () => [] };
const orders = PROJECTIONS.find((p) => p.collection === 'orders')!;

function served(ids: string[]): { served: ServedReadModels; reads: Array<{ afterId: string | null; limit: number }> } {
  const reads: Array<{ afterId: string | null; limit: number }> = [];
  const docs: Array<StoredDocument<unknown>> = ids.map((id) => ({ id, seq: 1, versions: {}, doc: { id } }));
  return {
    reads,
    served: {
      source: 'test',
      positions: async () => new Map([[orders.name, 0n]]),
      documents: async (collection, afterId, limit) => {
        if (collection !== orders.collection) return [];
        reads.push({ afterId, limit });
        return docs.filter((d) => afterId === null || d.id > afterId).slice(0, limit);
      },
    },
  };
}

describe('audit verify reads served documents a page at a time and keeps the first 500 differences', () => {
  it('when a read model spans pages, then each page continues after the last id and all are compared', async () => {
    const { served: s, reads } = served(['a', 'b', 'c', 'd', 'e']);
    const report = await verifyReadModels(events, s, { projections: [orders], pageSize: 2, waitMs: 0 });
    expect(reads).toEqual([
      { afterId: null, limit: 2 },
      { afterId: 'b', limit: 2 },
      { afterId: 'd', limit: 2 },
    ]);
    expect(report.differenceCount).toBe(5);
    expect(report.differences.map((d) => [d.id, d.kind])).toEqual(['a', 'b', 'c', 'd', 'e'].map((id) => [id, 'extra']));
    expect(report.readModels[0]).toMatchObject({ replayed: 0, served: 5 });
  });

  it('when more than 500 documents differ, then all are counted and the first 500 kept', async () => {
    const ids = Array.from({ length: 1234 }, (_, i) => `o${String(i).padStart(5, '0')}`);
    const report = await verifyReadModels(events, served(ids).served, { projections: [orders], waitMs: 0 });
    expect(report.differenceCount).toBe(1234);
    expect(report.differences).toHaveLength(500);
    expect(report.differences[499]!.id).toBe(ids[499]);
  });
});

describe('audit verify while the log moves on', () => {
  const recorded = (position: number, revision: number, e: OrderEvent): RecordedEvent => ({
    id: `e${position}`,
    streamId: 'order-sbx_ord_1',
    type: e.type,
    revision,
    position: BigInt(position),
    data: e.data as unknown as Record<string, unknown>,
    metadata: {},
    recordedAt: new Date('2026-10-12T11:00:00.000Z'),
  });

  /** A log holding the placement; the acceptance is written while the served documents are read. */
  function movingLog(
    served: (doc: StoredDocument<unknown>) => StoredDocument<unknown>,
    others: Array<StoredDocument<unknown>> = [],
  ) {
    const log = [recorded(1, 0, ev.placed({ order_id: 'sbx_ord_1' }))];
    const events = {
      headPosition: async () => BigInt(log.length),
      readAll: async ({ after }: { after: bigint }) => log.filter((e) => e.position > after),
    };
    const source: ServedReadModels = {
      source: 'test',
      positions: async () => new Map([[orders.name, BigInt(log.length)]]),
      documents: async (collection) => {
        if (collection !== orders.collection) return [];
        if (log.length === 1) log.push(recorded(2, 1, ev.accepted()));
        let doc: StoredDocument<unknown> | null = null;
        for (const e of log) doc = applyEvent(orders, doc, e, 'sbx_ord_1');
        return [served(doc!), ...others];
      },
    };
    return { events, source };
  }

  it('when a document moved past the head and its content is right, then it is no difference', async () => {
    const { events, source } = movingLog((doc) => doc);
    const report = await verifyReadModels(events, source, { projections: [orders], waitMs: 0, rounds: 1 });
    expect(report.differenceCount).toBe(0);
  });

  it('when a document claiming those new events has no replayed counterpart, then it is an extra', async () => {
    const forged = { id: 'sbx_ord_forged', seq: 2, versions: { 'order-sbx_ord_1': 1 }, doc: { status: 'confirmed' } };
    const { events, source } = movingLog((doc) => doc, [forged]);
    const report = await verifyReadModels(events, source, { projections: [orders], waitMs: 0, rounds: 1 });
    expect(report.differences).toEqual([expect.objectContaining({ id: 'sbx_ord_forged', kind: 'extra' })]);
  });

  it('when a document moved past the head and its content is wrong, then it is compared once the replay has caught up', async () => {
    const { events, source } = movingLog((doc) => ({ ...doc, doc: { ...(doc.doc as object), status: 'delivered' } }));
    const report = await verifyReadModels(events, source, { projections: [orders], waitMs: 0, rounds: 1 });
    expect(report.differences).toEqual([
      expect.objectContaining({
        id: 'sbx_ord_1',
        kind: 'different',
        fields: [expect.objectContaining({ path: 'doc.status', expected: 'confirmed', served: 'delivered' })],
      }),
    ]);
  });
});

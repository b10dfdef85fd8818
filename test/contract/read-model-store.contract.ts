import { describe, expect, it } from 'vitest';
import type { Query, ReadModelStore, StoredDocument } from '../../src/ports/read-model-store.js';

export interface Row {
  partner: string;
  status: string;
  created_at: string;
  total: number;
  reference: string | null;
  extra?: unknown;
}

const C = 'rows';

function stored(
  id: string,
  doc: Partial<Row> = {},
  seq = 1,
  versions: Record<string, number> = { [`s-${id}`]: seq - 1 },
): StoredDocument<Row> {
  return {
    id,
    seq,
    versions,
    doc: {
      partner: 'p1',
      status: 'placed',
      created_at: '2026-11-21T10:00:00.000Z',
      total: 100,
      reference: null,
      ...doc,
    },
  };
}

/** Ten rows: ids r0..r9, created one minute apart except r4/r5 (same minute: ties break on id). */
async function seed(s: ReadModelStore): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const minute = i === 5 ? 4 : i;
    await s.put(
      C,
      stored(`r${i}`, {
        partner: i % 2 === 0 ? 'p1' : 'p2',
        status: i < 3 ? 'delivered' : 'placed',
        created_at: `2026-11-21T10:0${minute}:00.000Z`,
        total: i * 10,
        reference: i === 7 ? 'ref-7' : null,
      }),
      null,
    );
  }
}

const ids = (rows: Array<StoredDocument<unknown>>) => rows.map((r) => r.id);
const q = (over: Partial<Query> = {}): Query => ({
  sort: { field: 'created_at', direction: 'asc' },
  limit: 100,
  ...over,
});

/**
 * One suite for every ReadModelStore adapter. `open` gives a fresh, empty store; the suite never
 * closes it (the caller does, e.g. when dropping the database).
 */
export function readModelStoreContract(name: string, open: () => Promise<ReadModelStore>, skip = false): void {
  describe.skipIf(skip)(`ReadModelStore contract: ${name}`, () => {
    describe('get / put (compare-and-set on seq)', () => {
      it('when a document is inserted with expectedSeq null, then get returns it exactly; a missing id gives null', async () => {
        const s = await open();
        const doc = stored(
          'o1',
          { extra: { nested: [1, 2.5, null, true, 'x'], empty: {}, geo: { lat: 29.3351, lng: -48.08 } } },
          1,
          {
            'order-o1': 0,
            'rider-o1': 12,
          },
        );
        expect(await s.put(C, doc, null)).toBe(true);
        expect(await s.get(C, 'o1')).toEqual(doc);
        expect(await s.get(C, 'o2')).toBeNull();
        expect(await s.get('other', 'o1')).toBeNull();
      });

      it('when an insert finds the document already there, then it returns false and changes nothing', async () => {
        const s = await open();
        await s.put(C, stored('o1', { status: 'placed' }), null);
        expect(await s.put(C, stored('o1', { status: 'cancelled' }), null)).toBe(false);
        expect((await s.get<Row>(C, 'o1'))!.doc.status).toBe('placed');
      });

      it('when an update names the stored seq, then it applies; a stale or unknown seq returns false and changes nothing', async () => {
        const s = await open();
        await s.put(C, stored('o1'), null);
        const next = stored('o1', { status: 'confirmed' }, 2);
        expect(await s.put(C, next, 1)).toBe(true);
        expect(await s.get(C, 'o1')).toEqual(next);
        expect(await s.put(C, stored('o1', { status: 'cancelled' }, 2), 1)).toBe(false);
        expect(await s.put(C, stored('o1', { status: 'cancelled' }, 9), 8)).toBe(false);
        expect(await s.get(C, 'o1')).toEqual(next);
      });

      it('when an update names a seq but the document does not exist, then it returns false and creates nothing', async () => {
        const s = await open();
        expect(await s.put(C, stored('o1', {}, 2), 1)).toBe(false);
        expect(await s.get(C, 'o1')).toBeNull();
      });

      it('when two writers race on the same seq, then exactly one wins', async () => {
        const s = await open();
        await s.put(C, stored('o1'), null);
        const results = await Promise.all([
          s.put(C, stored('o1', { status: 'a' }, 2), 1),
          s.put(C, stored('o1', { status: 'b' }, 2), 1),
          s.put(C, stored('o1', { status: 'c' }, 2), 1),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = ['a', 'b', 'c'][results.indexOf(true)];
        expect((await s.get<Row>(C, 'o1'))!.doc.status).toBe(winner);
        const inserts = await Promise.all([s.put(C, stored('o2'), null), s.put(C, stored('o2'), null)]);
        expect(inserts.filter(Boolean)).toHaveLength(1);
      });

      it('when eight writers race on each seq, round after round, then exactly one wins every round and the document holds its write', async () => {
        const s = await open();
        await s.put(C, stored('o1', { total: 0 }), null);
        for (let seq = 1; seq <= 6; seq++) {
          const writers = Array.from({ length: 8 }, (_, w) => w);
          const results = await Promise.all(
            writers.map((w) => s.put(C, stored('o1', { total: seq * 100 + w }, seq + 1), seq)),
          );
          expect(results.filter(Boolean), `round ${seq}`).toHaveLength(1);
          expect((await s.get<Row>(C, 'o1'))!.doc.total).toBe(seq * 100 + results.indexOf(true));
        }
        expect((await s.get(C, 'o1'))!.seq).toBe(7);
      });

      it('when the same id lives in two collections, then they are independent', async () => {
        const s = await open();
        await s.put('a', stored('o1', { status: 'in-a' }), null);
        await s.put('b', stored('o1', { status: 'in-b' }), null);
        expect((await s.get<Row>('a', 'o1'))!.doc.status).toBe('in-a');
        expect((await s.get<Row>('b', 'o1'))!.doc.status).toBe('in-b');
      });
    });

    describe('find', () => {
      it('when sorting ascending and descending, then ties on the field are ordered by id in the same direction', async () => {
        const s = await open();
        await seed(s);
        expect(ids(await s.find(C, q()))).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9']);
        expect(ids(await s.find(C, q({ sort: { field: 'created_at', direction: 'desc' } })))).toEqual([
          'r9',
          'r8',
          'r7',
          'r6',
          'r5',
          'r4',
          'r3',
          'r2',
          'r1',
          'r0',
        ]);
        expect(ids(await s.find(C, q({ sort: { field: 'total', direction: 'desc' }, limit: 3 })))).toEqual([
          'r9',
          'r8',
          'r7',
        ]);
      });

      it('when filtering with where, then only documents equal on every field come back (null matches null)', async () => {
        const s = await open();
        await seed(s);
        expect(ids(await s.find(C, q({ where: { partner: 'p1' } })))).toEqual(['r0', 'r2', 'r4', 'r6', 'r8']);
        expect(ids(await s.find(C, q({ where: { partner: 'p1', status: 'delivered' } })))).toEqual(['r0', 'r2']);
        expect(ids(await s.find(C, q({ where: { reference: 'ref-7' } })))).toEqual(['r7']);
        expect(ids(await s.find(C, q({ where: { partner: 'p2', reference: null } })))).toEqual([
          'r1',
          'r3',
          'r5',
          'r9',
        ]);
        expect(await s.find(C, q({ where: { partner: 'nobody' } }))).toEqual([]);
        expect(await s.find('empty', q())).toEqual([]);
      });

      it('when a range is given, then gt/gte/lt/lte bound the field (ISO strings compare as text, numbers as numbers)', async () => {
        const s = await open();
        await seed(s);
        const range = (r: Omit<NonNullable<Query['range']>, 'field'>, field = 'created_at') =>
          s.find(C, q({ range: { field, ...r } }));
        expect(ids(await range({ gt: '2026-11-21T10:07:00.000Z' }))).toEqual(['r8', 'r9']);
        expect(ids(await range({ gte: '2026-11-21T10:07:00.000Z' }))).toEqual(['r7', 'r8', 'r9']);
        expect(ids(await range({ lt: '2026-11-21T10:02:00.000Z' }))).toEqual(['r0', 'r1']);
        expect(ids(await range({ gt: '2026-11-21T10:03:00.000Z', lte: '2026-11-21T10:06:00.000Z' }))).toEqual([
          'r4',
          'r5',
          'r6',
        ]);
        expect(ids(await range({ gte: 20, lt: 50 }, 'total'))).toEqual(['r2', 'r3', 'r4']);
        expect(ids(await s.find(C, q({ where: { partner: 'p2' }, range: { field: 'total', gte: 50 } })))).toEqual([
          'r5',
          'r7',
          'r9',
        ]);
      });

      it('when paging with after and limit, then pages follow each other without gaps or repeats in both directions, across ties', async () => {
        const s = await open();
        await seed(s);
        for (const direction of ['asc', 'desc'] as const) {
          const seen: string[] = [];
          let after: Query['after'];
          for (;;) {
            const page = await s.find<Row>(
              C,
              q({ sort: { field: 'created_at', direction }, limit: 3, ...(after ? { after } : {}) }),
            );
            seen.push(...ids(page));
            if (page.length < 3) break;
            const last = page[page.length - 1]!;
            after = { value: last.doc.created_at, id: last.id };
          }
          const all = ids(await s.find(C, q({ sort: { field: 'created_at', direction } })));
          expect(seen).toEqual(all);
        }
        // A cursor in the middle of a tie: r4 and r5 share created_at.
        const tie = '2026-11-21T10:04:00.000Z';
        expect(ids(await s.find(C, q({ after: { value: tie, id: 'r4' }, limit: 2 })))).toEqual(['r5', 'r6']);
        expect(
          ids(
            await s.find(
              C,
              q({ sort: { field: 'created_at', direction: 'desc' }, after: { value: tie, id: 'r5' }, limit: 2 }),
            ),
          ),
        ).toEqual(['r4', 'r3']);
        expect(ids(await s.find(C, q({ where: { partner: 'p1' }, after: { value: tie, id: 'r4' } })))).toEqual([
          'r6',
          'r8',
        ]);
      });

      it('when sorting and paging on a field that is null or missing in some documents, then those sort lowest and pages neither skip nor repeat', async () => {
        const s = await open();
        await seed(s); // reference is null everywhere but r7 ('ref-7')
        await s.put(C, stored('m1', { reference: 'ref-2' }), null);
        const missing = stored('m0');
        delete (missing.doc as Partial<Row>).reference;
        await s.put(C, missing, null); // no reference at all: sorts with the nulls
        const nulls = ['m0', 'r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r8', 'r9'];
        const byReference = (direction: 'asc' | 'desc', over: Partial<Query> = {}) =>
          s.find<Row>(C, q({ sort: { field: 'reference', direction }, ...over }));
        expect(ids(await byReference('asc'))).toEqual([...nulls, 'm1', 'r7']);
        expect(ids(await byReference('desc'))).toEqual(['r7', 'm1', ...[...nulls].reverse()]);
        for (const direction of ['asc', 'desc'] as const) {
          for (const limit of [1, 3]) {
            const seen: string[] = [];
            let after: Query['after'];
            for (
              let page = await byReference(direction, { limit });
              page.length;
              page = await byReference(direction, { limit, after: after })
            ) {
              seen.push(...ids(page));
              const last = page[page.length - 1]!;
              after = { value: last.doc.reference ?? null, id: last.id };
            }
            expect(seen, `${direction}, pages of ${limit}`).toEqual(ids(await byReference(direction)));
          }
        }
        // Cursors on a null: ascending, the other nulls after its id, then every value; descending, the nulls before its id.
        expect(ids(await byReference('asc', { after: { value: null, id: 'r8' } }))).toEqual(['r9', 'm1', 'r7']);
        expect(ids(await byReference('desc', { after: { value: null, id: 'r1' } }))).toEqual(['r0', 'm0']);
        // A cursor on a value, descending: the nulls come after every value.
        expect(ids(await byReference('desc', { after: { value: 'ref-2', id: 'm1' }, limit: 3 }))).toEqual([
          'r9',
          'r8',
          'r6',
        ]);
        expect(ids(await byReference('asc', { after: { value: 'ref-2', id: 'm1' } }))).toEqual(['r7']);
        expect(ids(await byReference('asc', { where: { partner: 'p1' }, after: { value: null, id: 'r4' } }))).toEqual([
          'r6',
          'r8',
          'm1',
        ]);
      });
    });

    it('when counting, then where filters the same way as find', async () => {
      const s = await open();
      await seed(s);
      expect(await s.count(C)).toBe(10);
      expect(await s.count(C, { partner: 'p1' })).toBe(5);
      expect(await s.count(C, { status: 'delivered', partner: 'p2' })).toBe(1);
      expect(await s.count('empty')).toBe(0);
    });

    it('when all() is asked, then every document of the collection comes back ordered by id', async () => {
      const s = await open();
      for (const id of ['b', 'c', 'a']) await s.put(C, stored(id), null);
      await s.put('other', stored('z'), null);
      const all = await s.all<Row>(C);
      expect(ids(all)).toEqual(['a', 'b', 'c']);
      expect(all[0]).toEqual(stored('a'));
      expect(await s.all('empty')).toEqual([]);
    });

    it('when pageById() is asked page after page, then each page continues after the last id, in id order', async () => {
      const s = await open();
      for (const id of ['d', 'b', 'e', 'a', 'c']) await s.put(C, stored(id), null);
      await s.put('other', stored('z'), null);
      expect(ids(await s.pageById<Row>(C, null, 2))).toEqual(['a', 'b']);
      expect(ids(await s.pageById<Row>(C, 'b', 2))).toEqual(['c', 'd']);
      expect(await s.pageById<Row>(C, 'd', 2)).toEqual([stored('e')]);
      expect(await s.pageById(C, 'e', 2)).toEqual([]);
      expect(await s.pageById('empty', null, 2)).toEqual([]);
    });

    describe('retention (ensureIndexes with a retention, purgeExpired)', () => {
      const DAY = 24 * 60 * 60 * 1000;
      const now = new Date('2026-12-31T12:00:00.000Z');
      const daysAgo = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
      const D = 'dated';

      it('when documents outlive the retention, then purgeExpired deletes them by the retention field and keeps the younger, the undated and other collections', async () => {
        const s = await open();
        await s.ensureIndexes!(D, [{ partner: 1, created_at: -1, _id: -1 }], {
          retention: { field: 'created_at', afterMs: 30 * DAY },
        });
        await s.put(D, stored('d31', { created_at: daysAgo(31) }), null);
        await s.put(D, stored('d29', { created_at: daysAgo(29) }), null);
        await s.put(D, stored('d30', { created_at: daysAgo(30) }), null); // exactly 30 days: kept (older goes)
        const undated = stored('undated');
        delete (undated.doc as Partial<Row>).created_at;
        await s.put(D, undated, null);
        await s.put(C, stored('no-retention', { created_at: daysAgo(400) }), null);

        expect(await s.purgeExpired!(now)).toEqual({ [D]: 1 });
        expect(ids(await s.all(D))).toEqual(['d29', 'd30', 'undated']);
        expect(await s.get(D, 'd31')).toBeNull();
        expect(await s.count(D)).toBe(3);
        expect(ids(await s.find(D, q({ sort: { field: 'created_at', direction: 'desc' } })))).toEqual([
          'd29',
          'd30',
          'undated',
        ]);
        expect(ids(await s.all(C))).toEqual(['no-retention']);
        // A purged document takes no update; purging again finds nothing more.
        expect(await s.put(D, stored('d31', { status: 'late' }, 2), 1)).toBe(false);
        expect(await s.get(D, 'd31')).toBeNull();
        expect(await s.purgeExpired!(now)).toEqual({ [D]: 0 });
      });

      it('when a document is updated, then it keeps being retained by its field, and goes once that field is old enough', async () => {
        const s = await open();
        await s.ensureIndexes!(D, [], { retention: { field: 'created_at', afterMs: 30 * DAY } });
        await s.put(D, stored('d', { created_at: daysAgo(29) }), null);
        expect(await s.put(D, stored('d', { created_at: daysAgo(29), status: 'confirmed' }, 2), 1)).toBe(true);
        expect(await s.purgeExpired!(now)).toEqual({ [D]: 0 });
        expect(await s.purgeExpired!(new Date(now.getTime() + DAY + 1))).toEqual({ [D]: 1 });
        expect(await s.all(D)).toEqual([]);
      });
    });

    describe('checkpoints', () => {
      it('when checkpoints are saved, then they only move forward, per projection, and keep every bit of a bigint', async () => {
        const s = await open();
        expect(await s.checkpoint('p')).toBe(0n);
        await s.saveCheckpoint('p', 5n);
        expect(await s.checkpoint('p')).toBe(5n);
        await s.saveCheckpoint('p', 3n);
        expect(await s.checkpoint('p')).toBe(5n);
        const big = 2n ** 62n + 7n; // EventStoreDB commit positions exceed 2^53
        await s.saveCheckpoint('p', big);
        expect(await s.checkpoint('p')).toBe(big);
        expect(await s.checkpoint('q')).toBe(0n);
        await Promise.all([s.saveCheckpoint('q', 10n), s.saveCheckpoint('q', 30n), s.saveCheckpoint('q', 20n)]);
        expect(await s.checkpoint('q')).toBe(30n);
      });

      it('when several processes save checkpoints of a new projection at once, round after round, then none fails and the highest stays', async () => {
        const s = await open();
        for (let round = 1; round <= 4; round++) {
          const name = `race-${round}`;
          const positions = [3n, 9n, 1n, 7n, 5n, 8n].map((p) => p + BigInt(round) * 10n);
          await Promise.all(positions.map((p) => s.saveCheckpoint(name, p)));
          expect(await s.checkpoint(name), name).toBe(BigInt(round) * 10n + 9n);
          await Promise.all(positions.map((p) => s.saveCheckpoint(name, p - 5n)));
          expect(await s.checkpoint(name), `${name}, lower positions after`).toBe(BigInt(round) * 10n + 9n);
        }
      });

      it('when a projection is reset, then its collection and checkpoint are gone and nothing else is touched', async () => {
        const s = await open();
        await seed(s);
        await s.put('keep', stored('k1'), null);
        await s.saveCheckpoint('rows-projection', 40n);
        await s.saveCheckpoint('keep-projection', 50n);
        await s.reset('rows-projection', C);
        expect(await s.all(C)).toEqual([]);
        expect(await s.count(C)).toBe(0);
        expect(await s.checkpoint('rows-projection')).toBe(0n);
        expect(ids(await s.all('keep'))).toEqual(['k1']);
        expect(await s.checkpoint('keep-projection')).toBe(50n);
        expect(await s.put(C, stored('r0'), null)).toBe(true);
      });
    });
  });
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EndpointAgenda, type AgendaEntry } from '../../src/webhooks/agenda.js';

// One endpoint's agenda against a plain scan, over long random runs (long enough for the heap's
// left-behind places to be compacted): `next` gives a delivery that may go (attempted before, or
// the first of its lane by rank), due by now and not being attempted, due no later than any other
// such; none otherwise. A delivery taken stays busy until it is added, removed or rescheduled, as
// the scheduler holds it in flight.

type Op =
  | { kind: 'add'; id: number; lane: number; revision: number; dueAt: number; attempted: boolean }
  | { kind: 'remove'; id: number }
  | { kind: 'reschedule'; id: number; dueAt: number }
  | { kind: 'next'; now: number; busy: number[] };

const ids = fc.integer({ min: 0, max: 11 });
const times = fc.integer({ min: 0, max: 50 });
// Far ahead: a place left behind there stays in the heap until compacted.
const later = fc.oneof(times, fc.integer({ min: 100, max: 1_000 }));
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      id: ids,
      lane: fc.integer({ min: 0, max: 3 }),
      revision: fc.integer({ min: 0, max: 3 }),
      dueAt: times,
      attempted: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), id: ids }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('reschedule' as const), id: ids, dueAt: later }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('next' as const),
      now: times,
      busy: fc.array(ids, { maxLength: 2 }),
    }),
  },
);

describe('EndpointAgenda', () => {
  it('given random adds, removals, reschedules and looks, then next always gives what a scan of every entry gives', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 400, maxLength: 800 }), (ops) => {
        const agenda = new EndpointAgenda();
        const model = new Map<string, AgendaEntry>();
        const taken = new Set<string>();
        let seq = 0;
        const first = (e: AgendaEntry) =>
          ![...model.values()].some(
            (o) =>
              o !== e &&
              !o.attempted &&
              o.lane === e.lane &&
              (o.rank[0] < e.rank[0] || (o.rank[0] === e.rank[0] && o.rank[1] < e.rank[1])),
          );
        for (const o of ops) {
          const id = o.kind === 'next' ? '' : `d${o.id}`;
          if (o.kind === 'add') {
            // Ranks unique per lane: the second part is the add's number.
            const entry: AgendaEntry = {
              id,
              lane: `l${o.lane}`,
              rank: [o.revision, seq++],
              endpoint: 'e',
              dueAt: o.dueAt,
              attempted: o.attempted,
            };
            agenda.add(entry);
            model.set(id, entry);
            taken.delete(id);
          } else if (o.kind === 'remove') {
            agenda.remove(id);
            model.delete(id);
            taken.delete(id);
          } else if (o.kind === 'reschedule') {
            agenda.reschedule(id, o.dueAt);
            const entry = model.get(id);
            if (entry) entry.dueAt = o.dueAt; // the same object the agenda holds
            taken.delete(id);
          } else {
            const busy = new Set([...o.busy.map((b) => `d${b}`), ...taken]);
            const mayGo = [...model.values()].filter(
              (e) => e.dueAt <= o.now && !busy.has(e.id) && (e.attempted || first(e)),
            );
            const next = agenda.next(o.now, (x) => busy.has(x));
            if (mayGo.length === 0) expect(next).toBeUndefined();
            else {
              expect(next && mayGo.includes(next)).toBe(true);
              expect(next!.dueAt).toBe(Math.min(...mayGo.map((e) => e.dueAt)));
              agenda.take();
              taken.add(next!.id);
            }
            agenda.unpark();
          }
          expect(agenda.size).toBe(model.size);
        }
      }),
      { numRuns: 200 },
    );
  });
});

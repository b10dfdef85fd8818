import { describe, expect, it } from 'vitest';
import { PEER_JUDGED, judgedRound, peerRows, type Round, type SteadyFigures } from '../bench/peer-scenarios.mjs';

// The bench's rule for the two rows judged against the peer (docs/performance.md, the peer).

const P99 = PEER_JUDGED.create_200; // the peer must keep up with 200/s
const CPU = PEER_JUDGED.create_500; // compared at whatever rate the peer reached

const run = (over: Partial<SteadyFigures> = {}): SteadyFigures => ({
  bad: 0,
  completed: 2000,
  achieved: 200,
  cpuMsPerOrder: 2,
  latency: { p50: 4, p90: 10, p99: 40, max: 60 },
  ...over,
});
const round = (ratio: number, over: { ours?: Partial<SteadyFigures>; peer?: Partial<SteadyFigures> } = {}): Round => ({
  ours: run(over.ours),
  peer: run(over.peer),
  ratio,
});
const index = (rounds: Round[], judge = P99) => judgedRound(rounds, judge).index;

describe('the bench round a row judged against the peer reports', () => {
  it('is the round with the median ratio', () => {
    expect(index([round(1.3), round(0.4), round(0.9)])).toBe(2);
    expect(index([round(0.2), round(5), round(1.1)])).toBe(2);
  });

  it('is the higher of the two middle ratios when their number is even', () => {
    expect(index([round(1.0), round(2.0)])).toBe(1);
    expect(index([round(0.5), round(3), round(1.4), round(1.2)])).toBe(2);
  });

  it('leaves out rounds where the peer failed answers', () => {
    expect(index([round(1.5), round(0.1, { peer: { bad: 40 } }), round(1.2)])).toBe(0);
  });

  it('leaves out, for the p99, rounds where the peer answered everything but fell behind the rate', () => {
    // 135 of 200 orders/s, every answer seconds late: its p99 measures its backlog.
    const behind = { peer: { achieved: 135, latency: { p50: 2590, p90: 4000, p99: 4761, max: 5000 } } };
    expect(index([round(1.5), round(0.01, behind), round(1.3)])).toBe(0);
    expect(judgedRound([round(0.01, behind), round(0.02, behind)], P99)).toEqual({ index: 0, comparable: false });
  });

  it('keeps, for CPU per order, rounds where the peer fell behind but answered everything', () => {
    const behind = { peer: { achieved: 300 } };
    expect(judgedRound([round(0.9, behind), round(0.7, behind), round(0.8, behind)], CPU)).toEqual({
      index: 2,
      comparable: true,
    });
  });

  it('is a round where ours failed answers, whatever the ratios', () => {
    expect(index([round(0.5), round(0.6, { ours: { bad: 3 } }), round(0.4)])).toBe(1);
    expect(index([round(0.5), round(0.6), round(0.4, { ours: { completed: 0 } })])).toBe(2);
  });

  it('is the first round, not comparable, when no round is', () => {
    expect(judgedRound([round(NaN), round(0.3, { peer: { bad: 1 } })], P99)).toEqual({ index: 0, comparable: false });
  });
});

describe('the rows judged against the peer', () => {
  const rows = (p99Rounds: Round[], cpuRounds: Round[], synchronous: 'FULL' | 'NORMAL' = 'FULL') =>
    Object.fromEntries(
      peerRows([], { create_200_rounds: p99Rounds, create_500_rounds: cpuRounds }, {}, synchronous).map((r) => [
        r.id,
        r,
      ]),
    );
  const withRatio = (ours: Partial<SteadyFigures>, peer: Partial<SteadyFigures>, judge = P99): Round => {
    const r = { ours: run(ours), peer: run(peer), ratio: NaN };
    return { ...r, ratio: judge.ratio(r.ours, r.peer) };
  };

  it('pass within their limits and fail past them', () => {
    const p99 = [withRatio({ latency: { p50: 4, p90: 9, p99: 44, max: 50 } }, {})];
    const cpu = [withRatio({ cpuMsPerOrder: 2.2 }, {}, CPU)];
    const r = rows(p99, cpu);
    expect(r.create_200_p99!.pass).toBe(true); // 44 / 40 = 1.1
    expect(r.cpu_500!.pass).toBe(false); // 2.2 / 2 = 1.1
  });

  it('fail when ours failed answers, even where the peer failed too', () => {
    const bothFailed = [withRatio({ bad: 2 }, { bad: 9 })];
    const r = rows(
      bothFailed,
      bothFailed.map((x) => ({ ...x, ratio: 1 })),
    );
    expect(r.create_200_p99!.pass).toBe(false);
    expect(r.cpu_500!.pass).toBe(false);
  });

  it('are not judged when the peer fell behind in every round of the p99, and say so', () => {
    const behind = withRatio({}, { achieved: 135, latency: { p50: 2590, p90: 4000, p99: 4761, max: 5000 } });
    const r = rows([behind, behind, behind], [withRatio({}, {}, CPU)]);
    expect(r.create_200_p99!.pass).toBeNull();
    expect(r.create_200_p99!.note).toContain('not judged');
    expect(r.create_200_p99!.note).toContain('left out: the peer fell behind');
  });

  it('are not judged at NORMAL, where the peer runs at FULL', () => {
    const r = rows([withRatio({}, {})], [withRatio({}, {}, CPU)], 'NORMAL');
    expect(r.create_200_p99!.pass).toBeNull();
    expect(r.cpu_500!.pass).toBeNull();
  });
});

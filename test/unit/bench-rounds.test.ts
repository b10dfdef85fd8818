import { describe, expect, it } from 'vitest';
import { judgedRound, type Round, type SteadyFigures } from '../bench/peer-scenarios.mjs';

const run = (over: Partial<SteadyFigures> = {}): SteadyFigures => ({
  bad: 0,
  completed: 2000,
  cpuMsPerOrder: 2,
  latency: { p50: 4, p90: 10, p99: 40, max: 60 },
  ...over,
});
const round = (ratio: number, over: { ours?: Partial<SteadyFigures>; peer?: Partial<SteadyFigures> } = {}): Round => ({
  ours: run(over.ours),
  peer: run(over.peer),
  ratio,
});

describe('the bench round a row judged against the peer reports', () => {
  it('is the round with the median ratio', () => {
    expect(judgedRound([round(1.3), round(0.4), round(0.9)])).toBe(2);
    expect(judgedRound([round(0.2), round(5), round(1.1)])).toBe(2);
  });

  it('is the higher of the two middle ratios when their number is even', () => {
    expect(judgedRound([round(1.0), round(2.0)])).toBe(1);
    expect(judgedRound([round(0.5), round(3), round(1.4), round(1.2)])).toBe(2);
  });

  it('leaves out rounds where the peer failed answers', () => {
    // The 0.1 round is the peer failing to keep up: its figures say nothing of ours.
    expect(judgedRound([round(1.5), round(0.1, { peer: { bad: 40 } }), round(1.2)])).toBe(0);
  });

  it('is a round where ours failed answers, whatever the ratios', () => {
    expect(judgedRound([round(0.5), round(0.6, { ours: { bad: 3 } }), round(0.4)])).toBe(1);
    expect(judgedRound([round(0.5), round(0.6), round(0.4, { ours: { completed: 0 } })])).toBe(2);
  });

  it('is the first round when no round is comparable', () => {
    expect(judgedRound([round(NaN), round(0.3, { peer: { bad: 1 } })])).toBe(0);
  });
});

// Types of the parts of peer-scenarios.mjs that the TypeScript tests use (test/unit/bench-rounds.test.ts).

export interface SteadyFigures {
  bad: number;
  completed: number;
  cpuMsPerOrder: number;
  latency: { p50: number; p90: number; p99: number; max: number };
}

export interface Round {
  ours: SteadyFigures;
  peer?: SteadyFigures;
  ratio: number;
  peerFirst?: boolean;
}

export const PEER_ROWS: string[];
export const PEER_JUDGED: Record<'create_500' | 'create_200', (ours: SteadyFigures, peer: SteadyFigures) => number>;
export function answeredAll(r: SteadyFigures): boolean;
export function judgedRound(rounds: Round[]): number;

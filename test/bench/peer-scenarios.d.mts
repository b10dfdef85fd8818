// Types of the parts of peer-scenarios.mjs that the TypeScript tests use (test/unit/bench-rounds.test.ts).

export interface SteadyFigures {
  bad: number;
  completed: number;
  achieved: number;
  cpuMsPerOrder: number;
  latency: { p50: number; p90: number; p99: number; max: number };
}

export interface Round {
  ours: SteadyFigures;
  peer?: SteadyFigures;
  ratio: number;
  peerFirst?: boolean;
}

export interface Judge {
  rate: number;
  ratio: (ours: SteadyFigures, peer: SteadyFigures) => number;
  peerMustKeepUp: boolean;
}

export interface ReportRow {
  id: string;
  value: number;
  pass: boolean | null;
  note: string;
  peer?: { value: number; ratio: number; unit: string };
}

export const PEER_ROWS: string[];
export const KEPT_UP: number;
export const PEER_JUDGED: Record<'create_500' | 'create_200', Judge>;
export function answeredAll(r: SteadyFigures): boolean;
export function notComparable(round: Round, judge: Judge): string | null;
export function judgedRound(rounds: Round[], judge: Judge): { index: number; comparable: boolean };
export function peerRows(
  rows: ReportRow[],
  ours: Record<string, unknown>,
  peer: Record<string, unknown>,
  synchronous: 'FULL' | 'NORMAL',
): ReportRow[];

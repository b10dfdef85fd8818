import { Writable } from 'node:stream';

export type LogLine = Record<string, unknown>;

/** A pino destination that keeps each JSON log line, parsed, in `lines` (tests assert on what was logged). */
export function jsonLineSink(lines: LogLine[]): Writable {
  return new Writable({ write: (chunk, _e, cb) => (lines.push(JSON.parse(String(chunk)) as LogLine), cb()) });
}

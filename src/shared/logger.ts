import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths that must never reach a log line, whatever logs them. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'key',
  'api_key',
  'secret',
  'signing_secret',
  '*.secret',
  '*.signing_secret',
  '*.key',
];

export function createLogger(options: {
  level: string;
  pretty?: boolean;
  destination?: pino.DestinationStream;
}): Logger {
  const pretty = options.pretty ?? (process.stdout.isTTY === true && !options.destination);
  const base = { level: options.level, redact: { paths: REDACT, censor: '[redacted]' } };
  if (pretty) {
    return pino({
      ...base,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } },
    });
  }
  return options.destination ? pino(base, options.destination) : pino(base);
}

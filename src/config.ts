import { z } from 'zod';
import path from 'node:path';
import ipaddr from 'ipaddr.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * A whole number written in decimal digits, checked by `schema`: `z.coerce.number` would read
 * " " as 0 (PORT=" " would listen on a random port), and take 1e3 or 0x10.
 */
const wholeNumber = (schema: z.ZodNumber) =>
  z.string().trim().regex(/^\d+$/, 'must be a whole number written in digits').transform(Number).pipe(schema);

/** Every environment variable the service reads, with its meaning. Documented in README.md. */
export const configSchema = z
  .object({
    PORT: wholeNumber(z.number().int().min(0).max(65535)).default(3000).describe('HTTP port to listen on.'),
    HOST: z.string().min(1).default('0.0.0.0').describe('Interface to bind.'),
    DATA_DIR: z
      .string()
      .min(1)
      .default('./data')
      .describe('Where the embedded stores keep their files; created if missing.'),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('pino log level.'),
    EVENT_STORE: z.enum(['embedded', 'eventstoredb']).default('embedded').describe('Event store adapter.'),
    EVENTSTORE_URL: z
      .string()
      .regex(
        /^(esdb|kurrentdb|kdb)(\+discover)?:\/\/[^/?]/,
        'must be an esdb://host:2113 connection string (kurrentdb:// and kdb:// are read as esdb://)',
      )
      // Client 6 parses only esdb:// and esdb+discover://; KurrentDB's schemes name the same format.
      .transform((url) => url.replace(/^(kurrentdb|kdb)(?=(\+discover)?:\/\/)/, 'esdb'))
      .optional()
      .describe('EventStoreDB connection string, required when EVENT_STORE=eventstoredb.'),
    EVENTSTORE_UI_URL: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe("EventStoreDB's web UI, linked from the console's streams page when EVENT_STORE=eventstoredb."),
    READ_STORE: z
      .enum(['embedded', 'mongodb'])
      .default('embedded')
      .describe('Read-model, key, catalog and rate-limit store.'),
    MONGODB_URL: z
      .string()
      .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// connection string')
      .optional()
      .describe('MongoDB connection string, required when READ_STORE=mongodb.'),
    MONGODB_DB: z.string().min(1).default('partner_ordering').describe('MongoDB database name.'),
    ADMIN_TOKEN: z
      .string()
      .min(24, 'must be at least 24 characters')
      .optional()
      .describe('Bearer token for the /internal operations API and the /console login; both are disabled when unset.'),
    WEBHOOKS_ALLOW_PRIVATE_URLS: bool
      .default(false)
      .describe('Allow http:// and loopback/private webhook hosts. For local testing only.'),
    WEBHOOK_SECRETS_KEY: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
      .optional()
      .describe(
        'AES-256-GCM key for webhook signing secrets at rest; delivery quotes are signed with a key derived from it. Embedded default: a key file under DATA_DIR.',
      ),
    DEFAULT_RATE_LIMIT_PER_MIN: wholeNumber(z.number().int().min(600))
      .default(1200)
      .describe('Per-key limit for keys created without --rate-limit.'),
    BODY_LIMIT_BYTES: wholeNumber(z.number().int().min(1024).max(10_485_760))
      .default(102_400)
      .describe('Largest accepted request body.'),
    // Above the 5 s keep-alive plus KEEP_ALIVE_MARGIN_MS (src/http/http-server.ts): an idle
    // kept-alive connection must be closed by its keep-alive timeout, not answered 408.
    HTTP_REQUEST_TIMEOUT_MS: wholeNumber(
      z
        .number()
        .int()
        .min(6_000, 'must be at least 6000 (the headers timeout, at most this, must outlast the 5 s keep-alive by 1 s)')
        .max(600_000),
    )
      .default(30_000)
      .describe(
        'Longest time a client may take to send a whole request (headers at most 10 s of it); then 408 and the connection closes.',
      ),
    HTTP_MAX_CONNECTIONS: wholeNumber(z.number().int().min(1))
      .default(1_000)
      .describe(
        'Connections the HTTP server holds open at once; more are closed as they arrive. Keep it under the open-file limit.',
      ),
    SQLITE_SYNCHRONOUS: z
      .enum(['FULL', 'NORMAL'])
      .default('FULL')
      .describe('SQLite durability: FULL survives power loss, NORMAL only process crashes.'),
    // Node's timers hold at most 2^31 - 1 ms; a longer grace would fire at once and cut the drain.
    SHUTDOWN_GRACE_MS: wholeNumber(z.number().int().min(0).max(3_600_000))
      .default(10_000)
      .describe('How long SIGTERM waits for in-flight requests.'),
    TRUST_PROXY: z
      .string()
      .refine(
        validTrustProxy,
        'must be a number of proxy hops, or a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal',
      )
      .transform((v) => (/^\d+$/.test(v.trim()) ? Number(v) : v))
      .optional()
      .describe(
        'Reverse proxies whose X-Forwarded-For names the client (Express "trust proxy"); unset: the connecting address is the client.',
      ),
    AUTH_FAILURES_PER_MIN: wholeNumber(z.number().int().min(0))
      .default(60)
      .describe(
        'Failed authentications a client address may make per minute before its failures answer 429; 0 turns the throttle off.',
      ),
    AUDIT_WORKER_MEMORY_MB: wholeNumber(z.number().int().min(16))
      .default(1024)
      .describe(
        "Heap limit (MB) of the console's audit worker thread, on top of the service's own memory; an audit that needs more stops with an error.",
      ),
    PUBLIC_BASE_URL: z
      .string()
      .url()
      .optional()
      .describe(
        'Public address of this service, used in payment links. Defaults to http://localhost:PORT. An https:// one makes every answer of the app send Strict-Transport-Security and the console cookie Secure.',
      ),
    METRICS_PORT: wholeNumber(z.number().int().min(0).max(65535))
      .optional()
      .describe(
        'Serve GET /metrics on this port, without a token, instead of on PORT behind ADMIN_TOKEN. Never expose it publicly.',
      ),
  })
  .superRefine((c, ctx) => {
    if (c.EVENT_STORE === 'eventstoredb' && !c.EVENTSTORE_URL) {
      ctx.addIssue({ code: 'custom', path: ['EVENTSTORE_URL'], message: 'is required when EVENT_STORE=eventstoredb' });
    }
    if (c.READ_STORE === 'mongodb' && !c.MONGODB_URL) {
      ctx.addIssue({ code: 'custom', path: ['MONGODB_URL'], message: 'is required when READ_STORE=mongodb' });
    }
    if (c.METRICS_PORT !== undefined && c.METRICS_PORT !== 0 && c.METRICS_PORT === c.PORT) {
      ctx.addIssue({ code: 'custom', path: ['METRICS_PORT'], message: 'must differ from PORT' });
    }
    if (c.READ_STORE === 'mongodb' && !c.WEBHOOK_SECRETS_KEY) {
      // Several processes must decrypt the same secrets, so a per-machine key file will not do.
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_SECRETS_KEY'], message: 'is required when READ_STORE=mongodb' });
    }
  });

/** Express's `trust proxy` forms, except `true` (it would believe any client's X-Forwarded-For). */
function validTrustProxy(value: string): boolean {
  if (/^\d+$/.test(value.trim())) return true;
  const names = ['loopback', 'linklocal', 'uniquelocal'];
  const entries = value.split(',').map((e) => e.trim());
  return entries.every((e) => names.includes(e) || ipaddr.isValid(e) || ipaddr.isValidCIDR(e));
}

export type Config = z.infer<typeof configSchema> & { dataDir: string; publicBaseUrl: string };

export class ConfigError extends Error {}

/** Reads the environment once. Throws ConfigError with a one-line message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset" so that `FOO= npm start` behaves like leaving FOO out.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    const value = cleaned[name];
    const shown = value === undefined || /TOKEN|URL|KEY/.test(name) ? '' : ` (got "${value}")`;
    throw new ConfigError(`Invalid configuration: ${name} ${issue.message}${shown}`);
  }
  const c = parsed.data;
  return {
    ...c,
    dataDir: path.resolve(c.DATA_DIR),
    publicBaseUrl: c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`,
  };
}

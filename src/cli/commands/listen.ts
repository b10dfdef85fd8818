import type { Command } from 'commander';
import { setTimeout as delay } from 'node:timers/promises';
import { KEY_PREFIX } from '../../application/partners.js';
import { EVENT_TYPES, unknownEventTypes } from '../../domain/webhook/event-types.js';
import { DEFAULT_TIMEOUT_MS } from '../../webhooks/sender.js';
import { SECRET_PREFIX, newSigningSecret, webhookHeaders } from '../../webhooks/signing.js';
import { SERVICE_VERSION } from '../../webhooks/user-agent.js';
import { CliError } from '../context.js';

/**
 * `listen`: follows GET /v1/events of a sandbox key and forwards each new event to a local URL,
 * signed like a real webhook with a secret of its own, as `stripe listen` does. No tunnel, nothing
 * registered on the service, no restart.
 */

/** How far back each poll looks again: `created` is the time of each decision, and concurrent ones are written in any order. */
export const LOOKBACK_MS = 60_000;
const PAGE = 100;
const USER_AGENT = `partner-ordering-cli/${SERVICE_VERSION} (listen)`;

interface ListedEvent {
  id: string;
  object: 'event';
  type: string;
  created: string;
  environment: string;
  data: { order?: { id: string; status: string }; [k: string]: unknown };
  delivery?: unknown;
}

interface ListenOptions {
  key?: string;
  baseUrl: string;
  forwardTo?: string;
  events?: string;
  secret?: string;
  pollInterval: string;
  printJson?: boolean;
}

class KeyRefused extends CliError {}

interface Page<T> {
  data: T;
  pagination?: { has_more: boolean; next_starting_after: string | null };
}

class Api {
  constructor(
    readonly base: string,
    private readonly key: string,
    private readonly signal: AbortSignal,
  ) {}

  async get<T>(path: string): Promise<Page<T>> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        headers: { authorization: `Bearer ${this.key}`, 'user-agent': USER_AGENT },
        signal: AbortSignal.any([this.signal, AbortSignal.timeout(30_000)]),
      });
    } catch (err) {
      if (this.signal.aborted) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `cannot reach the service at ${this.base} (${cause?.code ?? cause?.message ?? (err as Error).message}): is it running there? Give its address with --base-url (or set PORT).`,
      );
    }
    const body = (await res.json().catch(() => null)) as { data?: T; error?: { code: string; message: string } } | null;
    if (res.ok && body && 'data' in body) return body as Page<T>;
    const why = body?.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${res.status}`;
    // A refused key or scope will not get better by asking again.
    if (res.status === 401 || res.status === 403) throw new KeyRefused(`GET ${path} failed: ${why}`);
    throw new CliError(`GET ${path} failed: ${why}`);
  }
}

function checkKey(key: string | undefined): string {
  const k = key ?? process.env.SERVICE_API_KEY;
  if (!k) throw new CliError('listen needs a sandbox key: --key svc_test_… (or SERVICE_API_KEY).');
  if (k.startsWith(KEY_PREFIX.live)) {
    throw new CliError(
      'listen takes sandbox keys only (svc_test_…): live events go to the endpoint you registered with PUT /v1/webhooks/endpoint.',
    );
  }
  if (!k.startsWith(KEY_PREFIX.sandbox)) throw new CliError('--key must be a sandbox key (svc_test_…).');
  return k;
}

function checkTypes(list: string | undefined): Set<string> | null {
  if (list === undefined) return null;
  const types = list
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = unknownEventTypes(types);
  if (unknown.length > 0 || types.length === 0) {
    throw new CliError(
      `--events: unknown event type ${unknown.join(', ') || '(none)'}; known: ${EVENT_TYPES.join(', ')}.`,
    );
  }
  return new Set(types);
}

function checkUrl(url: string, option: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new CliError(`${option}: not an http(s) URL: ${url}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new CliError(`${option}: not an http(s) URL: ${url}`);
  return url;
}

const describeEvent = (e: ListedEvent): string => {
  const order = e.data.order;
  return `${e.created}  --> ${e.type} [${e.id}]${order ? ` order ${order.id} (${order.status})` : ''}`;
};

/** The webhook's own bytes: the envelope as the service sends it, without the API's `delivery`. */
function webhookBody(e: ListedEvent): string {
  const { delivery: _delivery, ...envelope } = e;
  return JSON.stringify(envelope);
}

async function forward(url: string, secret: string, e: ListedEvent, signal: AbortSignal): Promise<string> {
  const body = webhookBody(e);
  const headers = {
    ...webhookHeaders({
      secrets: [secret],
      timestamp: Math.floor(Date.now() / 1000),
      eventId: e.id,
      eventType: e.type as (typeof EVENT_TYPES)[number],
      body,
    }),
    'User-Agent': USER_AGENT,
  };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(DEFAULT_TIMEOUT_MS)]),
    });
    await res.arrayBuffer().catch(() => undefined);
    return `<-- [${res.status}] POST ${url} [${e.id}]`;
  } catch (err) {
    if (signal.aborted) throw err;
    const cause = (err as { cause?: { code?: string } }).cause;
    return `<-- [failed: ${cause?.code ?? (err as Error).name}] POST ${url} [${e.id}]`;
  }
}

export async function listen(options: ListenOptions, out: (line: string) => void, stop: AbortSignal): Promise<void> {
  const key = checkKey(options.key);
  const types = checkTypes(options.events);
  // API paths are appended to the base URL; the forwarding URL is used exactly as given.
  const base = checkUrl(options.baseUrl, '--base-url').replace(/\/+$/, '');
  const forwardTo = options.forwardTo === undefined ? undefined : checkUrl(options.forwardTo, '--forward-to');
  const secret = options.secret ?? newSigningSecret();
  if (!secret.startsWith(SECRET_PREFIX) || secret.length < SECRET_PREFIX.length + 16) {
    throw new CliError(`--secret must look like ${SECRET_PREFIX}… (at least 16 characters after the prefix).`);
  }
  const interval = Number(options.pollInterval);
  if (!Number.isInteger(interval) || interval < 100 || interval > 60_000)
    throw new CliError('--poll-interval must be a whole number of milliseconds from 100 to 60000.');

  const api = new Api(base, key, stop);
  const ping = await api.get<{ environment: string; partner: { name: string }; server_time: string }>('/v1/ping');
  if (ping.data.environment !== 'sandbox') throw new CliError('listen takes sandbox keys only.');
  // A key without webhooks:read is refused here, before "Ready!" and a secret that would be no use.
  await api.get<ListedEvent[]>('/v1/events?limit=1');
  // "From now" on the service's clock: events created before it are not forwarded.
  const startedAt = ping.data.server_time;
  const seen = new Map<string, string>();
  let newest = startedAt;

  const poll = async (): Promise<ListedEvent[]> => {
    const lookback = new Date(Date.parse(newest) - LOOKBACK_MS).toISOString();
    const from = new Date(Math.max(Date.parse(startedAt), Date.parse(lookback)) - 1).toISOString();
    const single = types && types.size === 1 ? `&type=${encodeURIComponent([...types][0]!)}` : '';
    const found: ListedEvent[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<ListedEvent[]> = await api.get<ListedEvent[]>(
        `/v1/events?limit=${PAGE}&created_after=${encodeURIComponent(from)}${single}${cursor ? `&starting_after=${cursor}` : ''}`,
      );
      found.push(...page.data);
      cursor = page.pagination?.has_more ? page.pagination.next_starting_after : null;
    } while (cursor);
    for (const [id, created] of seen) if (created < from) seen.delete(id);
    // The list is newest first: forward oldest first, as the events happened.
    const fresh = found.reverse().filter((e) => !seen.has(e.id) && e.created >= startedAt);
    for (const e of fresh) {
      seen.set(e.id, e.created);
      if (e.created > newest) newest = e.created;
    }
    return fresh.filter((e) => !types || types.has(e.type));
  };

  out(`Ready! Listening for events of ${ping.data.partner.name} (sandbox) at ${base}`);
  out(`Your webhook signing secret is ${secret} (^C to quit)`);
  if (forwardTo) out(`Forwarding to ${forwardTo}`);
  let failures = 0;
  while (!stop.aborted) {
    try {
      for (const e of await poll()) {
        out(options.printJson ? webhookBody(e) : describeEvent(e));
        if (forwardTo) out(await forward(forwardTo, secret, e, stop));
      }
      failures = 0;
    } catch (err) {
      if (stop.aborted) break;
      if (err instanceof KeyRefused) throw err;
      failures++;
      process.stderr.write(`warning: ${(err as Error).message} (retrying)\n`);
    }
    await delay(Math.min(interval * 2 ** Math.min(failures, 5), 60_000), undefined, { signal: stop }).catch(
      () => undefined,
    );
  }
}

export function registerListenCommand(program: Command): void {
  program
    .command('listen')
    .description(
      'Follow the events of a sandbox key (GET /v1/events) and forward each to a local URL, signed with a secret printed at start',
    )
    .option('--key <key>', 'sandbox API key (svc_test_…); default SERVICE_API_KEY')
    .option(
      '--base-url <url>',
      'the running service (localhost on PORT when PORT is set)',
      `http://localhost:${process.env.PORT || 3000}`,
    )
    .option('--forward-to <url>', 'POST each event here, signed like a webhook (Service-Signature)')
    .option('--events <types>', `comma-separated event types to forward (default all): ${EVENT_TYPES.join(', ')}`)
    .option('--secret <whsec>', 'sign with this secret instead of a new one per run')
    .option('--poll-interval <ms>', 'how often to ask for new events', '1000')
    .option('--print-json', 'print each event as the JSON body a webhook carries')
    .action(async (options: ListenOptions) => {
      const stopping = new AbortController();
      const stop = () => stopping.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        await listen(options, (line) => process.stdout.write(`${line}\n`), stopping.signal);
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
      process.stdout.write('Stopped listening.\n');
    });
}

import { CliError } from '../context.js';

export interface InternalApiOptions {
  /** Base URL of a running service; default http://localhost:$PORT. */
  url?: string | undefined;
}

export interface Envelope<T> {
  data: T;
  pagination?: { has_more: boolean; next_starting_after: string | null };
}

/** The base URL of the service the /internal API is asked: `url`, else http://localhost:$PORT. */
export function serviceUrl(url: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return (url ?? `http://localhost:${env.PORT || 3000}`).replace(/\/+$/, '');
}

/**
 * A small client for a running service's /internal API (ADMIN_TOKEN from the environment), for the
 * commands that need what lives inside the server process. Every failure becomes a one-line CliError.
 */
export class InternalApi {
  readonly url: string;
  private readonly token: string;

  constructor(options: InternalApiOptions = {}, env: NodeJS.ProcessEnv = process.env) {
    this.url = serviceUrl(options.url, env);
    const token = env.ADMIN_TOKEN?.trim();
    if (!token) throw new CliError('ADMIN_TOKEN is not set: export the operations token the service runs with.');
    this.token = token;
  }

  get<T>(path: string): Promise<Envelope<T>> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string): Promise<Envelope<T>> {
    return this.call<T>('POST', path);
  }

  private async call<T>(method: string, path: string): Promise<Envelope<T>> {
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}` },
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new CliError(
        `cannot reach the service at ${this.url} (${why}): is it running? Pass --url if it listens elsewhere.`,
      );
    }
    const body = (await res.json().catch(() => null)) as
      (Envelope<T> & { error?: { code: string; message: string } }) | null;
    if (res.ok && body && 'data' in body) return body;
    if (res.status === 401) throw new CliError(`the service at ${this.url} refused ADMIN_TOKEN (401).`);
    const error = body?.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${res.status}`;
    throw new CliError(`${method} ${path} failed: ${error}`);
  }
}

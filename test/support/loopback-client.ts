import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

// Requests from a chosen client address. The whole of 127.0.0.0/8 is loopback on Linux, so a test can
// send from an address of its own: failed authentications are throttled per client address
// (AuthThrottle), and a test that sends many on purpose must not spend the budget of the others.

let next = 0;
/** A loopback address no other caller of this function in this process got (127.1.0.1, 127.1.0.2, ...). */
export function freshLoopbackAddress(): string {
  next += 1;
  return `127.1.${Math.floor(next / 250)}.${(next % 250) + 1}`;
}

export interface Listening {
  base: string;
  close(): Promise<void>;
}

/** Serves `app` on 127.0.0.1, which accepts connections from every 127.x.y.z source address. */
export async function listen(app: Express): Promise<Listening> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined when it is not JSON. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One request on its own connection, from `from` (a loopback address) when given. */
export function rawRequest(
  base: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; from?: string },
): Promise<RawAnswer> {
  const url = new URL(options.path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path: url.pathname + url.search,
        headers: {
          ...(options.body !== undefined ? { 'Content-Length': String(Buffer.byteLength(options.body)) } : {}),
          ...options.headers,
        },
        agent: false,
        ...(options.from ? { localAddress: options.from } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

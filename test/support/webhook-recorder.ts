import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A webhook receiver for tests that run the service as separate processes: a node:http server on
 * 127.0.0.1 that records every request (headers, raw body, wall-clock arrival) and answers 200 at
 * once. Signatures are checked later with `verifyDocumented`, the receiver-side check exactly as
 * docs/webhooks.md prints it (written here again, not imported from src/).
 */
export interface Receipt {
  /** 0-based arrival index. */
  n: number;
  /** Date.now() once the whole body had arrived. */
  at: number;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** The parsed body; null when it was not JSON. */
  event: RecordedEvent | null;
}

export interface RecordedEvent {
  id: string;
  object: string;
  type: string;
  created: string;
  environment: string;
  data: {
    order?: {
      id: string;
      status: string;
      updated_at: string;
      reference: string | null;
      payment: { status: string; refunded_amount: number };
    };
    previous_status?: string;
  };
}

export interface WebhookRecorder {
  url: string;
  receipts: Receipt[];
  /** Called for each receipt as it arrives. */
  onReceipt(listener: (r: Receipt) => void): void;
  close(): Promise<void>;
}

export async function startWebhookRecorder(path = '/hooks'): Promise<WebhookRecorder> {
  const listeners: Array<(r: Receipt) => void> = [];
  const receipts: Receipt[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let event: RecordedEvent | null = null;
      try {
        event = JSON.parse(raw.toString('utf8')) as RecordedEvent;
      } catch {
        event = null;
      }
      const receipt: Receipt = { n: receipts.length, at: Date.now(), headers: req.headers, raw, event };
      receipts.push(receipt);
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      for (const listener of listeners) listener(receipt);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    receipts,
    onReceipt: (listener) => void listeners.push(listener),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const TOLERANCE_SECONDS = 5 * 60;

/**
 * docs/webhooks.md "Verifying the signature" (the Node.js verifier), returning why it refused:
 * null for an authentic delivery signed within 5 minutes of `nowSeconds`.
 */
export function verifyDocumented(
  rawBody: Buffer,
  header: string | string[] | undefined,
  secret: string,
  nowSeconds: number,
): string | null {
  if (typeof header !== 'string') return 'no Service-Signature header';
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === null || signatures.length === 0) return `malformed header ${header}`;
  if (Math.abs(nowSeconds - timestamp) > TOLERANCE_SECONDS)
    return `timestamp ${timestamp} is ${nowSeconds - timestamp} s away from the arrival`;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  return signatures.some((s) => timingSafeEqual(s, expected)) ? null : 'no v1 matches';
}

import type { Command } from 'commander';
import { orderStream, type OrderEvent } from '../../domain/order/events.js';
import { foldView, type OrderView } from '../../domain/order/state.js';
import { CliError, printJson, withEventLog } from '../context.js';

export interface HistoryEntry {
  revision: number;
  position: string;
  at: string;
  type: string;
  actor: string | null;
  /** The order's status after this event, folded by the order machine; null if the fold failed here. */
  status_after: string | null;
  payment_status_after: string | null;
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
  /** Why the machine refused this event (a corrupt or incompatible history). */
  error?: string;
}

export function registerOrderCommands(program: Command): void {
  const orders = program
    .command('orders')
    .description('Look into orders straight from the event store (no server needed)');
  orders
    .command('history')
    .description("Every event of an order's stream in order, with the status after each (folded by the order machine)")
    .argument('<order_id>', 'order id, e.g. ord_... or sbx_...')
    .option('--json', 'print the history as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  orders history ord_2x8kq3\n  orders history sbx_9f2 --json | jq ".events[].type"',
    )
    .action(async (orderId: string, opts: { json?: boolean }) => {
      await withEventLog(async (log) => {
        const events = await log.readStream(orderStream(orderId));
        if (events.length === 0)
          throw new CliError(`no order with id ${orderId} (stream ${orderStream(orderId)} is empty)`);
        const entries = foldHistory(events);
        if (opts.json) printJson({ order_id: orderId, stream: orderStream(orderId), events: entries });
        else process.stdout.write(entries.map(describe).join(''));
        if (entries.some((e) => e.error))
          throw new CliError(
            `the order machine refuses this history at revision ${entries.find((e) => e.error)!.revision}`,
          );
      });
    });
}

/** Folds a stored order stream one event at a time; after a refused event the status is unknown. */
export function foldHistory(
  events: Array<{
    revision: number;
    position: bigint;
    type: string;
    data: Record<string, unknown>;
    metadata: Record<string, unknown>;
    recordedAt: Date;
  }>,
): HistoryEntry[] {
  // Stored events: replayed through the machine's table (foldView), as the read models replay them.
  let view: OrderView | null = null;
  let refused = false;
  return events.map((e) => {
    const entry: HistoryEntry = {
      revision: e.revision,
      position: e.position.toString(),
      at: typeof e.data.at === 'string' ? e.data.at : e.recordedAt.toISOString(),
      type: e.type,
      actor: typeof e.metadata.actor === 'string' ? e.metadata.actor : null,
      status_after: null,
      payment_status_after: null,
      metadata: e.metadata,
      data: e.data,
    };
    if (!refused) {
      try {
        view = foldView(view, [{ type: e.type, data: e.data } as OrderEvent]);
        entry.status_after = view.status;
        entry.payment_status_after = view.payment_status;
      } catch (err) {
        entry.error = (err as Error).message;
        refused = true;
      }
    } else entry.error = 'an earlier event was refused';
    return entry;
  });
}

/** Two lines per event: what happened and the status after it, then its metadata. */
function describe(e: HistoryEntry): string {
  const after = e.status_after ? `-> ${e.status_after} (payment ${e.payment_status_after})` : `REFUSED: ${e.error}`;
  const meta = Object.entries(e.metadata)
    .filter(([k]) => k !== 'actor')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `#${e.revision}  ${e.at}  ${e.type.padEnd(23)}  by ${e.actor ?? '?'}  ${after}\n    ${meta}\n`;
}

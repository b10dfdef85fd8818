import type { Command } from 'commander';
import { orderStream } from '../../domain/order/events.js';
import { foldHistory, type HistoryEntry } from '../../application/orders/history.js';
import { CliError, printJson, withEventLog } from '../context.js';

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

/** Two lines per event: what happened and the status after it, then its metadata. */
function describe(e: HistoryEntry): string {
  const after = e.status_after ? `-> ${e.status_after} (payment ${e.payment_status_after})` : `REFUSED: ${e.error}`;
  const meta = Object.entries(e.metadata)
    .filter(([k]) => k !== 'actor')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `#${e.revision}  ${e.at}  ${e.type.padEnd(23)}  by ${e.actor ?? '?'}  ${after}\n    ${meta}\n`;
}

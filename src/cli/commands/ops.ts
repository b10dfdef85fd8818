import type { Command } from 'commander';
import { OPS_ACTIONS, runOperation, type OpsAction, type OpsArgs } from '../../application/orders/operations.js';
import { isApiError } from '../../domain/errors.js';
import { createLogger } from '../../shared/logger.js';
import { systemClock } from '../../shared/clock.js';
import { CliError, printJson, withStores } from '../context.js';
import { toPublicOrder } from '../../domain/order/public-order.js';

function parseNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new CliError(`not a number: ${value}`);
  return n;
}

export function registerOpsCommands(program: Command): void {
  program
    .command('ops')
    .description('Restaurant, rider and support actions on an order (the same as POST /internal/orders/{id}/{action})')
    .argument('<order_id>', 'order id')
    .argument('<action>', OPS_ACTIONS.join(' | '))
    .option('--reason <text>', 'cancel / fail-payment reason')
    .option('--name <name>', 'assign-rider: rider name')
    .option('--phone <phone>', 'assign-rider: rider phone')
    .option('--vehicle <vehicle>', 'assign-rider: vehicle')
    .option('--amount <n>', "refund: amount in the order's currency (default: everything not yet refunded)")
    .option('--lat <n>', 'rider-location: latitude', parseNumber)
    .option('--lng <n>', 'rider-location: longitude', parseNumber)
    .option('--json', 'print the order as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  ops ord_123 accept\n  ops ord_123 assign-rider --name Ahmed --phone +96555512345 --vehicle motorbike\n  ops ord_123 refund --amount 1.250',
    )
    .action(async (orderId: string, action: string, opts: OpsArgs & { json?: boolean }) => {
      if (!(OPS_ACTIONS as readonly string[]).includes(action))
        throw new CliError(`unknown action ${action}; one of ${OPS_ACTIONS.join(', ')}`);
      // The service it builds seals and opens webhook signing secrets: the key must open them.
      await withStores(
        async (stores, config) => {
          // Loaded here, not at the top: the whole service (Express, metrics, webhooks) would slow every CLI command's start.
          const { buildServices } = await import('../../composition/server.js');
          const services = await buildServices(config, stores, {
            logger: createLogger({ level: 'silent', pretty: false }),
            clock: systemClock,
          });
          try {
            const order = await runOperation(services, orderId, action as OpsAction, opts, {
              requestId: `cli_${process.pid}`,
            });
            if (opts.json) return printJson(toPublicOrder(order));
            process.stdout.write(`${order.order_id}: ${order.status} (payment ${order.payment_status})\n`);
          } catch (err) {
            if (isApiError(err)) throw new CliError(`${err.code}: ${err.message}`);
            throw err;
          }
        },
        { webhookKeyCheck: true },
      );
    });
}

#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { CliError } from './context.js';
import { Refusal } from '../shared/refusal.js';
import { StorageUnavailableError } from '../ports/event-store.js';
import { registerPartnerCommands } from './commands/partners.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerOpsCommands } from './commands/ops.js';
import { registerCatalogCommands } from './commands/catalog.js';
import { registerOrderCommands } from './commands/orders.js';
import { registerStreamCommands } from './commands/streams.js';
import { registerProjectionCommands } from './commands/projections.js';
import { registerAuditCommands } from './commands/audit.js';
import { registerDataDirCommands } from './commands/data-dir.js';
import { registerListenCommand } from './commands/listen.js';

const program = new Command()
  .name('partner-ordering')
  .description('Operate the partner ordering service: partners, keys, catalog, orders, projections, audits.')
  .showHelpAfterError()
  .exitOverride();

registerPartnerCommands(program);
registerKeyCommands(program);
registerOpsCommands(program);
registerCatalogCommands(program);
registerOrderCommands(program);
registerStreamCommands(program);
registerProjectionCommands(program);
registerAuditCommands(program);
registerDataDirCommands(program);
registerListenCommand(program);

// A reader that stops early (`catalog export | head -1`) closes the pipe: end at once and quietly,
// with the status of a Unix tool killed by SIGPIPE (128 + 13), so a pipeline under `pipefail`
// still sees that the command was cut short.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(141);
  throw err;
});

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  // What the operator can act on (a mistake, a directory refused, a store down) is one line; a
  // stack trace is for a bug.
  if (err instanceof CliError || err instanceof Refusal || err instanceof StorageUnavailableError) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`error: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(2);
}

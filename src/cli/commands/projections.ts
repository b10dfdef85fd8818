import type { Command } from 'commander';
import { setTimeout as delay } from 'node:timers/promises';
import type { ProjectionStatus } from '../../application/read-models.js';
import { parsePositiveInt } from '../options.js';
import { CliError, cliConfig, printJson, printTable, withStores } from '../context.js';
import { PROJECTIONS } from '../../../projections/index.js';
import { InternalApi } from './internal-api.js';

const URL_HELP = 'base URL of the running service (default http://localhost:$PORT)';
const TOKEN_HELP =
  '\nThe read models live in the running service: these commands use its /internal API with ADMIN_TOKEN from the environment.';

export function registerProjectionCommands(program: Command): void {
  const projections = program
    .command('projections')
    .description("The service's read models: progress and rebuilds (through a running service)");
  projections
    .command('status')
    .description("Each projection's applied position, stored checkpoint, the log head and the lag")
    .option('--url <url>', URL_HELP)
    .option('--json', 'print JSON')
    .addHelpText('after', `${TOKEN_HELP}\n\nExample:\n  ADMIN_TOKEN=... projections status --url http://localhost:3000`)
    .action(async (opts: { url?: string; json?: boolean }) => {
      const status = (await new InternalApi(opts).get<ProjectionStatus[]>('/internal/projections')).data;
      if (opts.json) printJson(status);
      else
        printTable(
          status.map(({ name, collection, position, checkpoint, head, lag }) => ({
            name,
            collection,
            position,
            checkpoint,
            head,
            lag,
          })),
        );
    });
  projections
    .command('rebuild')
    .description('Drop a read model (or all of them) and replay the whole log into it; waits until it has caught up')
    .argument('[name]', 'projection name (see projections status); all when omitted')
    .option('--url <url>', URL_HELP)
    .option('--timeout <seconds>', 'give up waiting after this long (the rebuild goes on)', parsePositiveInt, 600)
    .addHelpText('after', `${TOKEN_HELP}\n\nExamples:\n  projections rebuild orders-list\n  projections rebuild`)
    .action(async (name: string | undefined, opts: { url?: string; timeout: number }) => {
      const api = new InternalApi(opts);
      const names = name
        ? [name]
        : (await api.get<ProjectionStatus[]>('/internal/projections')).data.map((s) => s.name);
      for (const n of names) {
        const started = (await api.post<ProjectionStatus>(`/internal/projections/${encodeURIComponent(n)}/rebuild`))
          .data;
        process.stdout.write(`rebuilding ${n} from position 0 up to ${started.head}...\n`);
      }
      const deadline = Date.now() + opts.timeout * 1000;
      for (;;) {
        const status = (await api.get<ProjectionStatus[]>('/internal/projections')).data.filter((s) =>
          names.includes(s.name),
        );
        if (status.every((s) => s.lag === '0')) {
          for (const s of status) process.stdout.write(`rebuilt ${s.name}: at position ${s.position}\n`);
          return;
        }
        if (Date.now() > deadline)
          throw new CliError(
            `still rebuilding after ${opts.timeout} s (it goes on in the service): ${status.map((s) => `${s.name} lag ${s.lag}`).join(', ')}`,
          );
        await delay(200);
      }
    });
  projections
    .command('reset')
    .description(
      'Drop every read model and its checkpoint in MongoDB (READ_STORE=mongodb), with no service running; the next start rebuilds them from the log',
    )
    .option('--yes', 'really drop them')
    .addHelpText(
      'after',
      '\nFor a service that refuses to start because a stored checkpoint is not in the event log (the event store ' +
        'was wiped or replaced): run this against the same READ_STORE / MONGODB_URL, then start the service. ' +
        'Stop every replica first (it refuses while a service runs on DATA_DIR). The embedded read models ' +
        '(READ_STORE=embedded) live in each service process until it ends and are rebuilt at every start, so there ' +
        'is nothing stored to reset (the command says so and exits 1); to rebuild a running one, use projections rebuild.' +
        '\n\nExample:\n  READ_STORE=mongodb MONGODB_URL=... WEBHOOK_SECRETS_KEY=... projections reset --yes',
    )
    .action(async (opts: { yes?: boolean }) => {
      if (!opts.yes)
        throw new CliError(
          'projections reset drops every read model: run it again with --yes (and no service running)',
        );
      if (cliConfig().READ_STORE === 'embedded')
        throw new CliError(
          'projections reset: the read models are embedded (READ_STORE=embedded): each service process keeps its own ' +
            'until it ends and rebuilds them from the log at every start, so nothing is stored to reset and nothing was reset. ' +
            "For MongoDB read models set READ_STORE=mongodb and MONGODB_URL; to rebuild a running service's: projections rebuild.",
        );
      await withStores(
        async (stores) => {
          for (const p of PROJECTIONS) {
            await stores.readModels.reset(p.name, p.collection);
            process.stdout.write(`reset ${p.name} (${p.collection}): the next start rebuilds it from the log\n`);
          }
        },
        { serviceStopped: true },
      );
    });
}

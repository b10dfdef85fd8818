import type { Command } from 'commander';
import { environmentOfKey, PartnerAdmin } from '../../application/partners.js';
import { systemClock } from '../../shared/clock.js';
import { CliError, printJson, printTable, withStores } from '../context.js';
import { parseEnvironment, parsePositiveInt, parseScopes } from '../options.js';
import type { Scope } from '../../domain/scopes.js';
import type { Environment } from '../../domain/environment.js';
import type { ApiKeyRecord } from '../../ports/partner-store.js';

const publicView = (k: ApiKeyRecord) => ({
  key_id: k.id,
  hint: k.hint,
  environment: k.environment,
  scopes: k.scopes,
  rate_limit_per_min: k.rate_limit_per_min,
  created_at: k.created_at,
  revoked_at: k.revoked_at,
});

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('Create, list and revoke API keys');

  keys
    .command('create')
    .description('Create an API key for a partner (shown once)')
    .requiredOption('--partner <id>', 'partner id')
    .requiredOption('--environment <env>', 'live or sandbox', parseEnvironment)
    .option('--scopes <scopes>', 'comma-separated scopes (default: every scope)', parseScopes)
    .option(
      '--rate-limit <n>',
      "requests per minute (default: DEFAULT_RATE_LIMIT_PER_MIN of this command's environment, not the service's)",
      parsePositiveInt,
    )
    .option('--json', 'print one JSON object')
    .action(
      async (opts: {
        partner: string;
        environment: Environment;
        scopes?: Scope[];
        rateLimit?: number;
        json?: boolean;
      }) => {
        await withStores(async (stores, config) => {
          const admin = new PartnerAdmin(stores.partners, systemClock, config.DEFAULT_RATE_LIMIT_PER_MIN);
          if (!(await stores.partners.getPartner(opts.partner)))
            throw new CliError(`No partner with id ${opts.partner}`);
          const { record, key } = await admin.createKey({
            partnerId: opts.partner,
            environment: opts.environment,
            ...(opts.scopes ? { scopes: opts.scopes } : {}),
            ...(opts.rateLimit ? { rateLimitPerMin: opts.rateLimit } : {}),
          });
          const out = {
            key_id: record.id,
            key,
            environment: record.environment,
            scopes: record.scopes,
            rate_limit_per_min: record.rate_limit_per_min,
          };
          if (opts.json) return printJson(out);
          process.stdout.write(
            `Key ${record.id} (${record.environment}): ${key}\nStore it now: it is not shown again.\n`,
          );
        });
      },
    );

  keys
    .command('list')
    .description("List a partner's keys (never shows the keys themselves)")
    .requiredOption('--partner <id>', 'partner id')
    .option('--json', 'print a JSON array')
    .action(async (opts: { partner: string; json?: boolean }) => {
      await withStores(
        async (stores) => {
          if (!(await stores.partners.getPartner(opts.partner)))
            throw new CliError(`No partner with id ${opts.partner}`);
          const list = (await stores.partners.listKeys(opts.partner)).map(publicView);
          if (opts.json) return printJson(list);
          printTable(list);
        },
        { readsPartners: true },
      );
    });

  keys
    .command('revoke')
    .description('Revoke a key; it stops working within a second')
    .argument('<key_id>', 'key id (from keys list)')
    .action(async (keyId: string) => {
      await withStores(async (stores) => {
        const admin = new PartnerAdmin(stores.partners, systemClock, 0);
        // A key given for its id: said without echoing it (the terminal's history, a CI log).
        if (environmentOfKey(keyId))
          throw new CliError(
            'that is an API key, not its id: `keys list --partner <partner_id>` shows the ids (key_…) to revoke',
          );
        if (!(await admin.revokeKey(keyId))) throw new CliError(`No key with id ${keyId}`);
        process.stdout.write(`Revoked ${keyId}\n`);
      });
    });
}

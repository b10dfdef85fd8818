import type { Command } from 'commander';
import { adoptDataDir, resealWebhookSecrets } from '../../composition/data-dir.js';
import { loadOrCreateKeyFile, parseKeyFromConfig } from '../../webhooks/secret-box.js';
import { CliError, cliConfig, withStores } from '../context.js';

/** The way out of a refusal at start when what was lost cannot be restored (docs/operations.md, The data directory). */
export function registerDataDirCommands(program: Command): void {
  const dataDir = program
    .command('data-dir')
    .description('Accept a loss the service refuses to start on, when no backup can restore it');

  dataDir
    .command('adopt')
    .description('Make events.db and service.db, as they are now, one data directory (embedded stores)')
    .option('--yes', 'really accept what the refusal said is lost')
    .addHelpText(
      'after',
      '\nFor a service that refuses to start because events.db or service.db is missing, empty, or from another ' +
        'directory. Restore the file from a backup instead whenever there is one: what it held (orders and ' +
        'idempotency keys, or partners, keys, catalog and webhook endpoints) is gone for good after this. Stop the service first.',
    )
    .action((opts: { yes?: boolean }) => {
      if (!opts.yes)
        throw new CliError(
          'data-dir adopt accepts the loss the refusal described: run it again with --yes (and no service running)',
        );
      const config = cliConfig();
      if (config.EVENT_STORE !== 'embedded' || config.READ_STORE !== 'embedded') {
        throw new CliError('data-dir adopt is for the embedded stores (EVENT_STORE=embedded and READ_STORE=embedded)');
      }
      const id = adoptDataDir(config);
      process.stdout.write(`events.db and service.db in ${config.dataDir} are now data directory ${id}\n`);
    });

  dataDir
    .command('reseal-webhook-secrets')
    .description(
      'Give every webhook endpoint a new signing secret sealed with the current key, after the old key is lost for good',
    )
    .option('--yes', 'really replace every signing secret')
    .addHelpText(
      'after',
      '\nFor a service that refuses to start because the webhook secrets key (DATA_DIR/webhook-secrets.key or ' +
        'WEBHOOK_SECRETS_KEY) does not open the stored secrets. Restore the key instead whenever there is one. ' +
        'Afterwards every partner must fetch its new secret with POST /v1/webhooks/endpoint/rotate-secret; until then ' +
        'its signature checks fail. Stop the service first.',
    )
    .action(async (opts: { yes?: boolean }) => {
      if (!opts.yes)
        throw new CliError(
          'data-dir reseal-webhook-secrets replaces every webhook signing secret: run it again with --yes (and no service running)',
        );
      await withStores(
        async (stores, config) => {
          // The key the service will use (webhooks/module.ts): a new key file when there is none.
          const key = config.WEBHOOK_SECRETS_KEY
            ? parseKeyFromConfig(config.WEBHOOK_SECRETS_KEY)
            : loadOrCreateKeyFile(config.dataDir);
          const count = await resealWebhookSecrets(stores, key, new Date());
          process.stdout.write(
            `resealed ${count} webhook endpoint(s); each partner gets its new secret with POST /v1/webhooks/endpoint/rotate-secret\n`,
          );
        },
        { webhookKeyCheck: false },
      );
    });
}

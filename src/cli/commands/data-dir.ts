import type { Command } from 'commander';
import fs from 'node:fs';
import path from 'node:path';
import {
  adoptDataDir,
  backupDataDir,
  EVENTS_FILE,
  resealWebhookSecrets,
  SERVICE_FILE,
} from '../../composition/data-dir.js';
import { Refusal } from '../../shared/refusal.js';
import { KEY_FILE_NAME, loadOrCreateKeyFile, parseKeyFromConfig } from '../../webhooks/secret-box.js';
import { checkDataDir, checkNoServiceRuns, CliError, cliConfig, withStores } from '../context.js';

/**
 * Backups of the embedded stores, and the way out of a refusal at start when what was lost cannot
 * be restored (docs/operations.md, The data directory).
 */
export function registerDataDirCommands(program: Command): void {
  const dataDir = program
    .command('data-dir')
    .description(
      'Back up the data directory, or accept a loss the service refuses to start on when no backup can restore it',
    );

  dataDir
    .command('backup')
    .argument('<dir>', 'a new directory for the backup')
    .description(
      'Copy events.db, service.db and the webhook secrets key into a new directory, consistently, while the service runs',
    )
    .addHelpText(
      'after',
      '\nEach database is copied as one read transaction sees it (SQLite VACUUM INTO), the log first, and checked; ' +
        'a plain copy of a running directory can catch a page half-written. To restore: stop the service, put the ' +
        "backup's files in DATA_DIR in place of the old ones (and of their -wal and -shm files), start it. With " +
        'WEBHOOK_SECRETS_KEY set there is no key file: keep that value with the backup.',
    )
    .action((dest: string) => {
      const config = cliConfig();
      if (config.EVENT_STORE !== 'embedded' || config.READ_STORE !== 'embedded') {
        throw new CliError(
          'data-dir backup is for the embedded stores (EVENT_STORE=embedded and READ_STORE=embedded); back up EventStoreDB and MongoDB with their own tools',
        );
      }
      checkDataDir(config);
      let backup;
      try {
        backup = backupDataDir(config, path.resolve(dest));
      } catch (err) {
        if (err instanceof Refusal) throw new CliError(err.message);
        throw err;
      }
      const files = backup.files.map((f) =>
        f.name === EVENTS_FILE
          ? `${f.name} (${backup.events} events, ${f.bytes} bytes)`
          : `${f.name} (${f.bytes} bytes)`,
      );
      process.stdout.write(
        `backed up ${config.dataDir} to ${path.resolve(dest)}: ${files.join(', ')}\n` +
          (config.WEBHOOK_SECRETS_KEY
            ? 'the webhook secrets key is WEBHOOK_SECRETS_KEY, not a file: keep its value with this backup\n'
            : ''),
      );
    });

  dataDir
    .command('adopt')
    .description('Make events.db and service.db, as they are now, one data directory (embedded stores)')
    .option('--yes', 'really accept what the refusal said is lost')
    .addHelpText(
      'after',
      '\nFor a service that refuses to start because events.db or service.db is missing, empty, or from another ' +
        'directory. Restore the file from a backup instead whenever there is one: what it held (orders and ' +
        'idempotency keys, or partners, keys, catalog and webhook endpoints) is gone for good after this. Stop the service ' +
        'first: the command refuses while one runs on DATA_DIR.',
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
      checkDataDir(config);
      checkNoServiceRuns(config);
      // It accepts the loss a refused start described: there is a directory with stores in it. A
      // missing or empty one is a wrong DATA_DIR (an unset one is ./data), never made here.
      if (![EVENTS_FILE, SERVICE_FILE].some((f) => fs.existsSync(path.join(config.dataDir, f))))
        throw new CliError(
          `${config.dataDir} holds neither ${EVENTS_FILE} nor ${SERVICE_FILE}: nothing to adopt. Set DATA_DIR to the directory the service refused to start on.`,
        );
      const id = adoptDataDir(config);
      process.stdout.write(`events.db and service.db in ${config.dataDir} are now data directory ${id}\n`);
    });

  dataDir
    .command('reseal-webhook-secrets')
    .description(
      'Give each webhook endpoint whose signing secret the current key does not open a new one sealed with it, after the old key is lost for good',
    )
    .option('--yes', 'really replace those signing secrets')
    .addHelpText(
      'after',
      '\nFor a service that refuses to start because the webhook secrets key (DATA_DIR/webhook-secrets.key or ' +
        'WEBHOOK_SECRETS_KEY) does not open the stored secrets. Restore the key instead whenever there is one. ' +
        'Endpoints whose secret the key opens keep it; when it opens every one, nothing is changed and the command ' +
        'exits 1. Afterwards each partner listed must fetch its new secret with POST /v1/webhooks/endpoint/rotate-secret; ' +
        'until then its signature checks fail. Stop the service first: the command refuses while one runs on DATA_DIR.',
    )
    .action(async (opts: { yes?: boolean }) => {
      if (!opts.yes)
        throw new CliError(
          'data-dir reseal-webhook-secrets replaces the webhook signing secrets the key does not open: run it again with --yes (and no service running)',
        );
      await withStores(
        async (stores, config) => {
          // The key the service will use (webhooks/module.ts): a new key file when there is none.
          const key = config.WEBHOOK_SECRETS_KEY
            ? parseKeyFromConfig(config.WEBHOOK_SECRETS_KEY)
            : loadOrCreateKeyFile(config.dataDir);
          const { resealed, previousDropped, kept } = await resealWebhookSecrets(stores, key, new Date());
          const source = config.WEBHOOK_SECRETS_KEY ? 'WEBHOOK_SECRETS_KEY' : path.join(config.dataDir, KEY_FILE_NAME);
          if (resealed.length === 0 && previousDropped.length === 0 && kept > 0) {
            throw new CliError(
              `${source} opens every stored webhook signing secret (${kept} endpoint(s)): nothing to reseal, nothing changed; the service starts with this key.`,
            );
          }
          process.stdout.write(
            `resealed ${resealed.length} webhook endpoint(s)${kept > 0 ? `; ${kept} kept theirs (${source} opens them)` : ''}` +
              (resealed.length > 0
                ? '; each partner below gets its new secret with POST /v1/webhooks/endpoint/rotate-secret\n'
                : '\n') +
              resealed.map((e) => `  ${e.partner_id} ${e.environment}\n`).join('') +
              (previousDropped.length > 0
                ? `dropped the previous secret, which ${source} does not open, of ${previousDropped.length} endpoint(s) that keep their current one:\n` +
                  previousDropped.map((e) => `  ${e.partner_id} ${e.environment}\n`).join('')
                : ''),
          );
        },
        { webhookKeyCheck: false, serviceStopped: true },
      );
    });
}

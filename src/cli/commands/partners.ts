import type { Command } from 'commander';
import { PartnerAdmin } from '../../application/partners.js';
import { systemClock } from '../../shared/clock.js';
import { characterCount, PRINTABLE_RULE, PRINTABLE_TEXT } from '../../shared/unicode.js';
import { CliError, printJson, printTable, withStores } from '../context.js';
import { parsePositiveInt, parseScopes } from '../options.js';
import type { Scope } from '../../domain/scopes.js';

const MAX_PARTNER_NAME = 200;

/**
 * A partner name as the API takes partner text (PRINTABLE_PATTERN): no control characters
 * (newlines, ESC sequences, bidi overrides), since the name reaches terminals, the
 * console and GET /v1/ping; trimmed, 1 to MAX_PARTNER_NAME characters. The refusal never echoes it.
 */
function partnerName(name: string): string {
  if (!PRINTABLE_TEXT.test(name)) throw new CliError(`--name ${PRINTABLE_RULE}.`);
  const trimmed = name.trim();
  const length = characterCount(trimmed);
  if (length < 1 || length > MAX_PARTNER_NAME)
    throw new CliError(`--name must be 1 to ${MAX_PARTNER_NAME} characters (not counting spaces around it).`);
  return trimmed;
}

export function registerPartnerCommands(program: Command): void {
  const partners = program.command('partners').description('Create and list partners');

  partners
    .command('create')
    .description('Create a partner with one live and one sandbox key (keys are shown once)')
    .requiredOption('--name <name>', `partner name: 1 to ${MAX_PARTNER_NAME} characters, no control characters`)
    .option('--scopes <scopes>', 'comma-separated scopes (default: every scope)', parseScopes)
    .option(
      '--rate-limit <n>',
      "requests per minute per key (default: DEFAULT_RATE_LIMIT_PER_MIN of this command's environment, not the service's)",
      parsePositiveInt,
    )
    .option('--json', 'print one JSON object')
    .action(async (opts: { name: string; scopes?: Scope[]; rateLimit?: number; json?: boolean }) => {
      const name = partnerName(opts.name);
      await withStores(async (stores, config) => {
        const admin = new PartnerAdmin(stores.partners, systemClock, config.DEFAULT_RATE_LIMIT_PER_MIN);
        const { partner, live, sandbox } = await admin.createPartner({
          name,
          ...(opts.scopes ? { scopes: opts.scopes } : {}),
          ...(opts.rateLimit ? { rateLimitPerMin: opts.rateLimit } : {}),
        });
        // `id` as in partners list; `partner_id` kept for scripts written before it.
        const out = {
          id: partner.id,
          partner_id: partner.id,
          name: partner.name,
          live_key_id: live.record.id,
          live_key: live.key,
          sandbox_key_id: sandbox.record.id,
          sandbox_key: sandbox.key,
          scopes: live.record.scopes,
          rate_limit_per_min: live.record.rate_limit_per_min,
        };
        if (opts.json) return printJson(out);
        process.stdout.write(
          `Partner ${partner.name} (${partner.id})\n` +
            `  live key:    ${live.key}  (id ${live.record.id})\n  sandbox key: ${sandbox.key}  (id ${sandbox.record.id})\n` +
            `  scopes: ${out.scopes.join(', ')}\n  rate limit: ${out.rate_limit_per_min}/min\n` +
            'Store these keys now: they are not shown again.\n',
        );
      });
    });

  partners
    .command('list')
    .description('List partners')
    .option('--json', 'print a JSON array')
    .action(async (opts: { json?: boolean }) => {
      await withStores(
        async (stores) => {
          const list = await stores.partners.listPartners();
          if (opts.json) return printJson(list);
          printTable(list.map((p) => ({ id: p.id, name: p.name, created_at: p.created_at })));
        },
        { readsPartners: true },
      );
    });
}

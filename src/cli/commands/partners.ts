import type { Command } from 'commander';
import { PartnerAdmin } from '../../application/partners.js';
import { systemClock } from '../../shared/clock.js';
import { printJson, printTable, withStores } from '../context.js';
import { parsePositiveInt, parseScopes } from '../options.js';
import type { Scope } from '../../domain/scopes.js';

export function registerPartnerCommands(program: Command): void {
  const partners = program.command('partners').description('Create and list partners');

  partners
    .command('create')
    .description('Create a partner with one live and one sandbox key (keys are shown once)')
    .requiredOption('--name <name>', 'partner name')
    .option('--scopes <scopes>', 'comma-separated scopes (default: every scope)', parseScopes)
    .option('--rate-limit <n>', 'requests per minute per key (default: DEFAULT_RATE_LIMIT_PER_MIN)', parsePositiveInt)
    .option('--json', 'print one JSON object')
    .action(async (opts: { name: string; scopes?: Scope[]; rateLimit?: number; json?: boolean }) => {
      await withStores(async (stores, config) => {
        const admin = new PartnerAdmin(stores.partners, systemClock, config.DEFAULT_RATE_LIMIT_PER_MIN);
        const { partner, live, sandbox } = await admin.createPartner({
          name: opts.name,
          ...(opts.scopes ? { scopes: opts.scopes } : {}),
          ...(opts.rateLimit ? { rateLimitPerMin: opts.rateLimit } : {}),
        });
        const out = {
          partner_id: partner.id,
          name: partner.name,
          live_key: live.key,
          sandbox_key: sandbox.key,
          scopes: live.record.scopes,
          rate_limit_per_min: live.record.rate_limit_per_min,
        };
        if (opts.json) return printJson(out);
        process.stdout.write(
          `Partner ${partner.name} (${partner.id})\n` +
            `  live key:    ${live.key}\n  sandbox key: ${sandbox.key}\n` +
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
      await withStores(async (stores) => {
        const list = await stores.partners.listPartners();
        if (opts.json) return printJson(list);
        printTable(list.map((p) => ({ id: p.id, name: p.name, created_at: p.created_at })));
      });
    });
}

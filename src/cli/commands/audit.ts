import type { Command } from 'commander';
import type { ProjectionStatus } from '../../application/read-models.js';
import type { StoredDocument } from '../../ports/read-model-store.js';
import {
  servedFromStore,
  verifyReadModels,
  type AuditReport,
  type ServedReadModels,
} from '../../application/audit/verify.js';
import type { Difference } from '../../application/audit/diff.js';
import { parsePositiveInt } from '../options.js';
import { cliConfig, printJson, withEventLog } from '../context.js';
import { InternalApi, serviceUrl } from './internal-api.js';

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('Check the read models against the event log');
  audit
    .command('verify')
    .description(
      'Replay the whole log into fresh read models and compare them with the ones the service serves; exit 1 on any difference',
    )
    .option('--url <url>', 'embedded mode: base URL of the running service (default http://localhost:$PORT)')
    .option('--wait <seconds>', 'how long to wait for the service to apply the newest events', parsePositiveInt, 10)
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Where the served read models come from:
  READ_STORE=mongodb   straight from MongoDB (MONGODB_URL, MONGODB_DB); no server needed
  embedded (default)   they live inside the server process: read through its /internal API
                       (--url, ADMIN_TOKEN from the environment)
The log is read from the configured event store (DATA_DIR/events.db or EVENTSTORE_URL).

Examples:
  ADMIN_TOKEN=... npm run cli -- audit verify --url http://localhost:3000
  READ_STORE=mongodb MONGODB_URL=mongodb://localhost:27017 EVENT_STORE=eventstoredb EVENTSTORE_URL=esdb://localhost:2113?tls=false npm run cli -- audit verify`,
    )
    .action(async (opts: { url?: string; wait: number; json?: boolean }) => {
      // readModels is missing only for an embedded directory read alone (withEventLog): served through the API.
      // Compared with a service on another directory, every document would differ: refused (checkDataDir).
      // Only where the log is that directory's (embedded): on EventStoreDB both read the same log.
      const config = cliConfig();
      const throughApi = config.READ_STORE !== 'mongodb' && config.EVENT_STORE === 'embedded';
      await withEventLog(
        async (events, config, readModels) => {
          const served =
            config.READ_STORE === 'mongodb' && readModels
              ? servedFromStore(readModels, `MongoDB database ${config.MONGODB_DB}`)
              : servedThroughApi(new InternalApi({ url: opts.url }));
          const report = await verifyReadModels(events, served, { waitMs: opts.wait * 1000 });
          if (opts.json) printJson(toJson(report));
          else process.stdout.write(describe(report));
          if (report.differenceCount) process.exitCode = 1;
        },
        throughApi ? { serviceUrl: serviceUrl(opts.url) } : {},
      );
    });
}

/** The read models of an embedded server, which only it holds: through GET /internal/... */
function servedThroughApi(api: InternalApi): ServedReadModels {
  return {
    source: `${api.url} (internal API)`,
    positions: async () =>
      new Map(
        (await api.get<ProjectionStatus[]>('/internal/projections')).data.map((s) => [s.name, BigInt(s.position)]),
      ),
    documents: async (collection, afterId, limit) => {
      const query = `limit=${limit}${afterId === null ? '' : `&starting_after=${encodeURIComponent(afterId)}`}`;
      return (
        await api.get<Array<StoredDocument<unknown>>>(
          `/internal/read-models/${encodeURIComponent(collection)}?${query}`,
        )
      ).data;
    },
  };
}

function describe(report: AuditReport): string {
  let out = '';
  for (const name of report.behind) {
    const r = report.readModels.find((m) => m.projection === name)!;
    out += `warning: ${name} has applied up to ${r.servedPosition ?? 'nothing'} of ${report.head}: is the service running and caught up?\n`;
  }
  for (const d of report.differences) out += describeDifference(d);
  const counts = report.readModels.map((r) => `${r.collection} ${r.served}`).join(', ');
  const shown =
    report.differences.length < report.differenceCount
      ? ` (listed: the first ${report.differences.length} of ${report.differenceCount})`
      : '';
  const verdict = report.differenceCount
    ? `FAILED: ${report.differenceCount} difference(s) in ${report.readModels.filter((r) => r.differences > 0).length} read model(s)${shown}`
    : `OK: ${report.readModels.length} read models equal the replay`;
  return `${out}audit verify ${verdict} (log up to position ${report.head}; documents: ${counts}; served by ${report.source})\n`;
}

function describeDifference(d: Difference): string {
  const head = `${d.collection}/${d.id}: `;
  if (d.kind === 'missing') return `${head}missing (the replay has it, the service does not)\n`;
  if (d.kind === 'extra') return `${head}extra (the service has it, the replay does not)\n`;
  return `${head}differs\n${d.fields.map((f) => `    ${f.path}: replay ${JSON.stringify(f.expected)}, served ${JSON.stringify(f.served)}\n`).join('')}`;
}

const toJson = (r: AuditReport) => ({
  ok: r.differenceCount === 0,
  ...r,
  head: r.head.toString(),
  readModels: r.readModels.map((m) => ({ ...m, servedPosition: m.servedPosition?.toString() ?? null })),
});

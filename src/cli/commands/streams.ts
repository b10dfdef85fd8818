import type { Command } from 'commander';
import { parsePositiveInt } from '../options.js';
import { CliError, printJson, printTable, withEventLog } from '../context.js';

/** A stream browser for the embedded mode, where no EventStoreDB UI exists (works on EventStoreDB too). */
export function registerStreamCommands(program: Command): void {
  const streams = program.command('streams').description('Browse the event store: streams and their events');
  streams
    .command('list')
    .description('Streams with their last revision, ordered by name')
    .option('--prefix <prefix>', 'only streams whose name starts with this, e.g. order- or rider-')
    .option('--limit <n>', 'at most this many streams', parsePositiveInt, 100)
    .option('--after <stream>', 'only streams whose name comes after this one: the last name of the previous page')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  streams list --prefix order-\n  streams list --prefix rider- --limit 10 --json' +
        '\n  streams list --prefix order- --after order-ord_2x8kq3   # the next page',
    )
    .action(async (opts: { prefix?: string; limit: number; after?: string; json?: boolean }) => {
      await withEventLog(async (events) => {
        const list = await events.listStreams({
          limit: opts.limit,
          ...(opts.prefix ? { prefix: opts.prefix } : {}),
          ...(opts.after ? { after: opts.after } : {}),
        });
        const rows = list.map((s) => ({
          stream: s.streamId,
          last_revision: s.lastRevision,
          events: s.lastRevision + 1,
        }));
        if (opts.json) printJson(rows);
        else printTable(rows);
      });
    });
  streams
    .command('show')
    .description("A stream's events in order: revision, position, time, type, metadata and data")
    .argument('<stream>', 'stream name, e.g. order-ord_2x8kq3')
    .option('--json', 'print JSON')
    .action(async (stream: string, opts: { json?: boolean }) => {
      await withEventLog(async (log) => {
        const events = await log.readStream(stream);
        if (events.length === 0) throw new CliError(`stream ${stream} has no events (see: streams list)`);
        const rows = events.map((e) => ({
          revision: e.revision,
          position: e.position.toString(),
          recorded_at: e.recordedAt.toISOString(),
          type: e.type,
          id: e.id,
          metadata: e.metadata,
          data: e.data,
        }));
        if (opts.json) return printJson({ stream, events: rows });
        for (const r of rows) {
          process.stdout.write(`#${r.revision}  position ${r.position}  ${r.recorded_at}  ${r.type}  (${r.id})\n`);
          process.stdout.write(`    metadata ${JSON.stringify(r.metadata)}\n    data     ${JSON.stringify(r.data)}\n`);
        }
      });
    });
}

import type { Command } from 'commander';
import { openAgentRecords } from '../../core/agent/index.js';
import { type CliContext, ExitCode } from '../context.js';
import { integerIn } from '../options.js';
import type { SetExitCode } from '../program.js';

/** `pincer audit [--run ID] [--json]`: the append-only record of every tool decision. */
export function registerAudit(program: Command, ctx: CliContext, setExit: SetExitCode) {
  program
    .command('audit')
    .description('the audit trail: every tool call, policy decision and approval')
    .option('--run <id>', 'only this run, in order')
    .option(
      '--limit <n>',
      'newest rows to show without --run (1-100000)',
      integerIn(1, 100_000),
      200,
    )
    .option('--json', 'print JSON')
    .action((options: { run?: string; limit: number; json?: boolean }) => {
      const records = openAgentRecords(ctx.dataDir);
      try {
        const rows = records.audit.list({
          runId: options.run,
          limit: options.limit,
        });
        if (options.json) {
          ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        } else if (rows.length === 0) {
          ctx.stdout.write(
            options.run ? `no audit rows for run ${options.run}\n` : 'the audit trail is empty\n',
          );
        } else {
          const ordered = options.run ? rows : [...rows].reverse();
          for (const r of ordered) {
            const what = [
              r.decision,
              r.status,
              r.rule && `rule ${r.rule}`,
              r.approvalBy && `by ${r.approvalBy}`,
              r.reason,
            ]
              .filter(Boolean)
              .join(', ');
            ctx.stdout.write(
              `${r.at}  ${r.runId}  ${(r.tool ?? '-').padEnd(14)} ${r.event.padEnd(18)} ${what}\n`,
            );
          }
        }
        setExit(ExitCode.ok);
      } finally {
        records.close();
      }
    });
}

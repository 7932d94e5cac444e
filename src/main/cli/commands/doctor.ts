import type { Command } from 'commander';
import { formatDoctorReport, runDoctor } from '../../core/doctor/index.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';

export function registerDoctor(program: Command, ctx: CliContext, setExit: SetExitCode) {
  program
    .command('doctor')
    .description(
      'check this machine: Node, data dir, Electron, native modules, keychain, sandbox, models, GPU',
    )
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }) => {
      const report = await runDoctor({ dataDir: ctx.dataDir, appDir: ctx.appDir });
      ctx.stdout.write(
        options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatDoctorReport(report)}\n`,
      );
      setExit(report.status === 'fail' ? ExitCode.failed : ExitCode.ok);
    });
}

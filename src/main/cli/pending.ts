import { type CliContext, ExitCode } from './context.js';

/**
 * A command whose capability is not built yet says so plainly, naming the issue that brings it,
 * and exits with its own code, so no script mistakes it for success.
 */
export function pending(ctx: CliContext, command: string, capability: string, issues: number[]) {
  const refs =
    issues.length > 0 ? `issue ${issues.map((n) => `#${n}`).join(', ')}` : 'a later issue';
  ctx.stderr.write(
    `pincer ${command}: not available yet. It needs ${capability} (${refs}).\n` +
      'Run `pincer doctor` to see what this installation can do today.\n',
  );
  return ExitCode.notYet;
}

import { Command, CommanderError } from 'commander';
import { PINCER_VERSION } from '../core/product.js';
import { registerAudit } from './commands/audit.js';
import { registerChat } from './commands/chat.js';
import { registerDoctor } from './commands/doctor.js';
import { registerGateway } from './commands/gateway.js';
import { registerManifest } from './commands/manifest.js';
import { registerMemory } from './commands/memory.js';
import { registerModels } from './commands/models.js';
import { registerRun } from './commands/run.js';
import { registerSecrets } from './commands/secrets.js';
import { registerServe } from './commands/serve.js';
import { registerSkills } from './commands/skills.js';
import { type CliContext, ExitCode } from './context.js';

export type SetExitCode = (code: number) => void;

/** Builds the `pincer` command tree; commands report their exit code through `setExit`. */
export function buildProgram(ctx: CliContext, setExit: SetExitCode): Command {
  const program = new Command()
    .name('pincer')
    .description('Pincer, a local-first AI assistant: headless commands')
    .version(PINCER_VERSION, '-v, --version')
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
    })
    .exitOverride();
  program.addHelpText(
    'after',
    `\nData directory: ${ctx.dataDir} (set PINCER_HOME to change it)\n` +
      'Exit codes: 0 ok, 1 failed, 2 bad usage, 3 capability not built yet.\n',
  );
  registerDoctor(program, ctx, setExit);
  registerRun(program, ctx, setExit);
  registerChat(program, ctx, setExit);
  registerAudit(program, ctx, setExit);
  registerModels(program, ctx, setExit);
  registerManifest(program, ctx, setExit);
  registerGateway(program, ctx, setExit);
  registerSecrets(program, ctx, setExit);
  registerMemory(program, ctx, setExit);
  registerSkills(program, ctx, setExit);
  registerServe(program, ctx, setExit);
  return program;
}

/** Runs the CLI against `argv` (without node and script) and resolves to the exit code. */
export async function runCli(argv: string[], ctx: CliContext): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const program = buildProgram(ctx, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    ctx.stderr.write(`pincer: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.failed;
  }
  return exitCode;
}

import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { pending } from '../pending.js';
import type { SetExitCode } from '../program.js';

/** Commands whose capabilities land in later issues; each one says which. */
export function registerPendingCommands(program: Command, ctx: CliContext, setExit: SetExitCode) {
  program
    .command('serve')
    .description('serve the Claw Kernel Protocol (JSON-RPC over stdio, HTTP or WebSocket)')
    .action(() => setExit(pending(ctx, 'serve', 'the CKP JSON-RPC server', [])));
}

import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { pending } from '../pending.js';
import type { SetExitCode } from '../program.js';

/** Commands whose capabilities land in later issues; each one says which. */
export function registerPendingCommands(program: Command, ctx: CliContext, setExit: SetExitCode) {
  program
    .command('chat')
    .description('chat with the agent in this terminal')
    .option('--manifest <file>', 'use this claw.yaml instead of the default agent')
    .action(() => setExit(pending(ctx, 'chat', 'the local engine and the agent runtime', [4, 6])));

  program
    .command('run')
    .description('run one task to completion and print the reply')
    .argument('<message>', 'what to ask')
    .option('--manifest <file>', 'use this claw.yaml instead of the default agent')
    .action(() => setExit(pending(ctx, 'run', 'the local engine and the agent runtime', [4, 6])));

  program
    .command('serve')
    .description('serve the Claw Kernel Protocol (JSON-RPC over stdio, HTTP or WebSocket)')
    .action(() => setExit(pending(ctx, 'serve', 'the CKP JSON-RPC server', [11])));

  program
    .command('models')
    .description('list, pull and select local models')
    .action(() => setExit(pending(ctx, 'models', 'the model manager', [4])));

  program
    .command('secrets')
    .description('store, list and delete credentials in the OS keychain')
    .action(() => setExit(pending(ctx, 'secrets', 'the credential store', [9])));

  program
    .command('skills')
    .description('list and manage skills')
    .action(() => setExit(pending(ctx, 'skills', 'the skills registry', [10])));

  program
    .command('audit')
    .description('browse the audit trail of tool calls and decisions')
    .action(() => setExit(pending(ctx, 'audit', 'the policy engine and audit trail', [7])));
}

import { Command, CommanderError, Help } from 'commander';
import { PINCER_VERSION } from '../core/product.js';
import { type CliContext, ExitCode } from './context.js';
import { describeError } from './errors.js';
import { TerminalSafeStream } from './terminal-text.js';

export type SetExitCode = (code: number) => void;
type Register = (program: Command, ctx: CliContext, setExit: SetExitCode) => void;

/**
 * The commands, in help order. A module is imported only when its command runs: `--version`,
 * `--help` and every other command skip the rest (each pulls in much of the core). The names,
 * usage terms and summaries here stand in for the unloaded ones in help; a test checks they say
 * what the modules register.
 */
export const COMMANDS: ReadonlyArray<{
  load: () => Promise<Register>;
  commands: ReadonlyArray<{ name: string; term: string; summary: string }>;
}> = [
  {
    load: async () => (await import('./commands/doctor.js')).registerDoctor,
    commands: [
      {
        name: 'doctor',
        term: 'doctor [options]',
        summary:
          'check this machine: Node, data dir, Electron, native modules, keychain, sandbox, models, GPU',
      },
    ],
  },
  {
    load: async () => (await import('./commands/run.js')).registerRun,
    commands: [
      {
        name: 'run',
        term: 'run [options] <message>',
        summary:
          'ask the agent once and print the reply as it streams (the local model by default)',
      },
      { name: 'runs', term: 'runs', summary: 'list, inspect and resume agent runs' },
    ],
  },
  {
    load: async () => (await import('./commands/chat.js')).registerChat,
    commands: [
      {
        name: 'chat',
        term: 'chat [options]',
        summary: 'chat with the agent in this terminal (Ctrl+C stops a reply)',
      },
    ],
  },
  {
    load: async () => (await import('./commands/audit.js')).registerAudit,
    commands: [
      {
        name: 'audit',
        term: 'audit [options]',
        summary: 'the audit trail: every tool call, policy decision and approval',
      },
    ],
  },
  {
    load: async () => (await import('./commands/models.js')).registerModels,
    commands: [
      { name: 'models', term: 'models', summary: 'list, pull and remove local GGUF models' },
    ],
  },
  {
    load: async () => (await import('./commands/manifest.js')).registerManifest,
    commands: [
      {
        name: 'manifest',
        term: 'manifest',
        summary:
          'validate, show and create claw.yaml manifests (Claw Kernel Protocol 0.2.0 and 0.3.0)',
      },
    ],
  },
  {
    load: async () => (await import('./commands/gateway.js')).registerGateway,
    commands: [
      {
        name: 'gateway',
        term: 'gateway [options]',
        summary: 'serve the chat UI and its WebSocket bridge on 127.0.0.1',
      },
    ],
  },
  {
    load: async () => (await import('./commands/daemon.js')).registerDaemon,
    commands: [
      {
        name: 'daemon',
        term: 'daemon [options]',
        summary: 'run the agent without a window: channels and schedules (Ctrl+C stops)',
      },
    ],
  },
  {
    load: async () => (await import('./commands/channels.js')).registerChannels,
    commands: [{ name: 'channels', term: 'channels', summary: 'the channels of the manifest' }],
  },
  {
    load: async () => (await import('./commands/secrets.js')).registerSecrets,
    commands: [
      {
        name: 'secrets',
        term: 'secrets',
        summary: 'store, list and delete credentials (OS keychain, encrypted vault, env)',
      },
    ],
  },
  {
    load: async () => (await import('./commands/memory.js')).registerMemory,
    commands: [
      {
        name: 'memory',
        term: 'memory',
        summary: 'remember notes and documents, search them (keywords + embeddings)',
      },
    ],
  },
  {
    load: async () => (await import('./commands/skills.js')).registerSkills,
    commands: [
      {
        name: 'skills',
        term: 'skills',
        summary: 'list, search, add, enable and disable skills (instructions, never code)',
      },
    ],
  },
  {
    load: async () => (await import('./commands/mcp.js')).registerMcp,
    commands: [
      {
        name: 'mcp',
        term: 'mcp',
        summary: 'MCP servers whose tools the agent uses, and the agent as an MCP server',
      },
    ],
  },
  {
    load: async () => (await import('./commands/swarm.js')).registerSwarm,
    commands: [{ name: 'swarm', term: 'swarm', summary: "run or join the manifest's swarm" }],
  },
  {
    load: async () => (await import('./commands/serve.js')).registerServe,
    commands: [
      {
        name: 'serve',
        term: 'serve [options]',
        summary:
          'serve the agent over the Claw Kernel Protocol (--stdio, --http PORT, --ws PORT) and A2A (--a2a PORT), or with --openai the local model as an OpenAI-compatible API',
      },
    ],
  },
  {
    load: async () => (await import('./commands/agents.js')).registerAgents,
    commands: [
      {
        name: 'agents',
        term: 'agents',
        summary: 'remote A2A agents the model may ask, each a tool (add shows the AgentCard)',
      },
    ],
  },
  {
    load: async () => (await import('./commands/tui.js')).registerTui,
    commands: [
      {
        name: 'tui',
        term: 'tui [options]',
        summary: 'the terminal dashboard: chat, agents, tools, approvals (F1 for help)',
      },
    ],
  },
];

/** The command `argv` names (`help NAME` names NAME), or undefined for none. */
export function commandNamed(argv: readonly string[]): string | undefined {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/**
 * Builds the `pincer` command tree; commands report their exit code through `setExit`. With
 * `{ command }`, only the module of that command loads (none for `--help` or `--version`), the
 * others are listed by name and summary; `'all'` loads every one.
 */
export async function buildProgram(
  ctx: CliContext,
  setExit: SetExitCode,
  load: { command: string | undefined } | 'all' = 'all',
): Promise<Command> {
  const stubTerms = new WeakMap<Command, string>();
  const program = new Command()
    .name('pincer')
    .description('Pincer, a local-first AI assistant: headless commands')
    .version(PINCER_VERSION, '-v, --version')
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
    })
    .configureHelp({
      subcommandTerm: (command) =>
        stubTerms.get(command) ?? Help.prototype.subcommandTerm.call(new Help(), command),
    })
    .exitOverride();
  program.addHelpText(
    'after',
    `\nData directory: ${ctx.dataDir} (set PINCER_HOME to change it)\n` +
      'Exit codes: 0 ok, 1 failed, 2 bad usage, 3 capability not built yet.\n',
  );
  for (const entry of COMMANDS) {
    if (load === 'all' || entry.commands.some((command) => command.name === load.command)) {
      (await entry.load())(program, ctx, setExit);
      continue;
    }
    for (const command of entry.commands) {
      stubTerms.set(program.command(command.name).description(command.summary), command.term);
    }
  }
  return program;
}

/**
 * Runs the CLI against `argv` (without node and script) and resolves to the exit code. Every
 * command prints through sanitizing streams: model, tool and database text cannot drive the
 * terminal.
 */
export async function runCli(argv: string[], terminal: CliContext): Promise<number> {
  const ctx: CliContext = {
    ...terminal,
    stdout: new TerminalSafeStream(terminal.stdout),
    stderr: new TerminalSafeStream(terminal.stderr),
  };
  let exitCode: number = ExitCode.ok;
  const program = await buildProgram(
    ctx,
    (code) => {
      exitCode = code;
    },
    { command: commandNamed(argv) },
  );
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    ctx.stderr.write(`pincer: ${describeError(ctx, error)}\n`);
    return ExitCode.failed;
  }
  return exitCode;
}

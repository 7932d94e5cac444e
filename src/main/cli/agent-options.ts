/**
 * The agent flags every command shares (`pincer run`, `chat`, `gateway`, `runs resume`) and
 * their meaning as the root's options. Nothing is opened here but through the root.
 */
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import {
  type Agent,
  type AgentOptions,
  DEFAULT_TOOLS,
  type ModelChoice,
  openAgent,
} from '../core/agent/index.js';
import { describeContext } from '../core/memory/index.js';
import { ADAPTERS, type HttpProtocol } from '../core/models/index.js';
import type { CliContext } from './context.js';
import { integerIn, numberIn } from './options.js';
import { terminalApprovals, terminalQuestions } from './terminal-approvals.js';
import { terminalInputs } from './terminal-inputs.js';

export interface LocalModelOptions {
  modelPath?: string;
  tools?: string;
  system?: string;
  maxTokens?: number;
  temperature?: number;
  threads?: number;
  contextSize?: number;
  maxArgLength?: number;
  workspace?: string;
}

export interface ModelChoiceOptions extends LocalModelOptions {
  protocol: string;
  provider?: string;
  manifest?: string;
  endpoint?: string;
  model?: string;
  apiKeyEnv?: string;
  timeout: number;
  toolFormat?: string;
  takesImages?: boolean;
}

/** What every agent command accepts; `pincer runs resume` and the tests pass a subset. */
export type AgentFlags = LocalModelOptions &
  Partial<Omit<ModelChoiceOptions, keyof LocalModelOptions>>;

export const PROTOCOL_NAMES: Record<string, HttpProtocol | 'local'> = {
  local: 'local',
  'openai-compatible': 'openai-compatible',
  openai: 'openai-compatible',
  responses: 'responses',
  'openai-responses': 'responses',
  anthropic: 'anthropic',
  'anthropic-native': 'anthropic',
  gemini: 'gemini',
};

export function addModelOptions(command: Command): Command {
  return command
    .option('--model-path <file>', 'GGUF model to use (else PINCER_MODEL, bundled, data dir)')
    .option('--system <text>', 'system prompt')
    .option('--max-tokens <n>', 'longest reply in tokens', integerIn(1, 1_000_000), 1024)
    .option('--temperature <t>', 'sampling temperature (0 = greedy)', numberIn(0, 2), 0.7)
    .option(
      '--threads <n>',
      'CPU threads (default: physical cores, fewer on a busy machine)',
      integerIn(1, 1024),
    )
    .option('--context-size <n>', 'largest context window', integerIn(16, 16_777_216))
    .option(
      '--max-arg-length <chars>',
      'longest string argument the local grammar lets the model write (default: unbounded)',
      integerIn(1, 100_000_000),
    )
    .option(
      '--workspace <dir>',
      "an existing folder the agent's tools work in (default: the profile's own, in the data dir)",
    )
    .option(
      '--tools <globs>',
      `tools the model may call, comma-separated (default ${DEFAULT_TOOLS}; "" for none)`,
    );
}

export function addModelChoiceOptions(command: Command): Command {
  return command
    .option('--provider <name>', 'a provider of the manifest; its fallback chain is tried in order')
    .option('--manifest <file>', 'the claw.yaml to read providers from (default: the one in force)')
    .option('--protocol <name>', `local, ${Object.keys(ADAPTERS).join(', ')}`, 'local')
    .option('--endpoint <url>', 'base URL of the server, e.g. http://127.0.0.1:11434/v1')
    .option('--model <name>', 'model name the server expects')
    .option(
      '--api-key-env <NAME>',
      'environment variable holding the API key (never the key itself)',
    )
    .option(
      '--timeout <ms>',
      'deadline for the response head and for each stream pause',
      integerIn(1, 86_400_000),
      60_000,
    )
    .option(
      '--takes-images',
      'the --model reads images (a manifest provider declares it in claw.yaml instead)',
    )
    .option(
      '--tool-format <format>',
      "native (the protocol's tool calls) or text (@ns/tool{...} lines: for models without " +
        "tool calling; on the local model, under the compact language's grammar)",
      'native',
    );
}

/** A usage problem in the options, or undefined when they make sense. */
export function checkModelChoice(options: ModelChoiceOptions): string | undefined {
  if (options.workspace !== undefined) {
    const problem = workspaceProblem(options.workspace);
    if (problem) return problem;
  }
  if (options.toolFormat && !['native', 'text'].includes(options.toolFormat))
    return `--tool-format is native or text, not "${options.toolFormat}"`;
  const protocol = PROTOCOL_NAMES[options.protocol];
  if (!protocol) {
    return `unknown protocol "${options.protocol}" (use ${Object.keys(PROTOCOL_NAMES).join(', ')})`;
  }
  if (protocol !== 'local' && !options.model && !options.provider) {
    return `--model is required with --protocol ${options.protocol}`;
  }
  return undefined;
}

/** Why a --workspace folder cannot be used: it must exist and be a directory (never created). */
function workspaceProblem(dir: string): string | undefined {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) return `--workspace ${dir}: no such directory`;
  if (!stat.isDirectory()) return `--workspace ${dir}: not a directory`;
  return undefined;
}

/** The folder as the sandbox and the policy compare it: absolute, links resolved. */
function canonical(dir: string): string {
  try {
    return realpathSync(path.resolve(dir));
  } catch {
    return path.resolve(dir);
  }
}

/** The agent the flags describe: the model choice, the local engine's settings, the rest. */
export function agentOptionsOf(ctx: CliContext, options: AgentFlags): AgentOptions {
  return {
    dataDir: ctx.dataDir,
    appDir: ctx.appDir,
    manifest: options.manifest,
    model: modelChoiceOf(options),
    local: {
      threads: options.threads,
      contextSize: options.contextSize,
      temperature: options.temperature,
      maxArgLength: options.maxArgLength,
    },
    tools: options.tools,
    system: options.system,
    workspace: options.workspace === undefined ? undefined : canonical(options.workspace),
    generation: { maxTokens: options.maxTokens, temperature: options.temperature },
    onModelSkipped: ({ problem }) =>
      ctx.stderr.write(`pincer: skipping a model that cannot be used: ${problem}\n`),
    onContext: process.env.PINCER_SHOW_CONTEXT
      ? (built) => ctx.stderr.write(describeContext(built))
      : undefined,
  };
}

export function modelChoiceOf(options: AgentFlags): ModelChoice {
  if (options.provider) return { kind: 'provider', name: options.provider };
  const protocol = PROTOCOL_NAMES[options.protocol ?? 'local'] ?? 'local';
  const toolFormat = options.toolFormat === 'text' ? 'text' : 'native';
  if (protocol === 'local') return { kind: 'local', modelPath: options.modelPath, toolFormat };
  return {
    kind: 'server',
    protocol,
    endpoint: options.endpoint,
    model: options.model ?? '',
    apiKeyRef: options.apiKeyEnv,
    timeoutMs: options.timeout,
    toolFormat,
    takesImages: options.takesImages === true,
  };
}

/**
 * The agent from the root with the terminal as its approval surface (arguments redacted, one
 * answer per line) and where an MCP server's form is filled in, one field per line.
 */
export async function openCliAgent(
  ctx: CliContext,
  options: AgentFlags,
  readAnswer?: () => Promise<string | undefined>,
): Promise<{ agent: Agent; close(): Promise<void> }> {
  const agent = await openAgent({ ...agentOptionsOf(ctx, options), askForInput: true });
  const { broker, scanner, inputs } = agent.governance;
  const questions = terminalQuestions(readAnswer);
  const stopApprovals = terminalApprovals(ctx, broker, scanner, questions);
  const stopInputs = terminalInputs(ctx, inputs, questions);
  return {
    agent,
    close: async () => {
      stopApprovals();
      stopInputs();
      questions.close();
      await agent.close();
    },
  };
}

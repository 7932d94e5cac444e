import type { Command } from 'commander';
import { type AgentParts, openAgentParts } from '../core/assistant/agent-parts.js';
import { DEFAULT_ASSISTANT_TOOLS as DEFAULT_TOOLS } from '../core/assistant/types.js';
import { loadActiveClaw, type ResolvedClaw, resourcesDirOf } from '../core/ckp/index.js';
import { LocalEngine } from '../core/local/engine.js';
import { noModelHelp, resolveChatModel } from '../core/local/model-manager.js';
import { LocalModelProvider } from '../core/local/provider.js';
import { localSetup } from '../core/local/setup.js';
import { describeContext } from '../core/memory/context.js';
import { findLocalChatModel } from '../core/memory/open.js';
import { ModelError } from '../core/models/errors.js';
import { routerFromManifest } from '../core/models/from-manifest.js';
import { ADAPTERS, type HttpProtocol, HttpProvider } from '../core/models/http-provider.js';
import { type ProviderId, providerId } from '../core/models/ids.js';
import { withTextToolCalls } from '../core/models/text-tools.js';
import type { ModelProvider } from '../core/models/types.js';
import { type ModelAccess, viaProvider, viaRouter } from '../core/runtime/hooks.js';
import { AgentRuntime } from '../core/runtime/runtime.js';
import { RunStore } from '../core/runtime/store.js';
import { createSecretStore } from '../core/secrets/index.js';
import { openDatabase, profileDatabasePath } from '../core/storage/database.js';
import type { CliContext } from './context.js';
import { integerIn, numberIn } from './options.js';
import { terminalApprovals } from './terminal-approvals.js';

export interface LocalModelOptions {
  modelPath?: string;
  tools?: string;
  system?: string;
  maxTokens?: number;
  temperature?: number;
  threads?: number;
  contextSize?: number;
  maxArgLength?: number;
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
}

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
    .option('--threads <n>', 'CPU threads (default: all cores)', integerIn(1, 1024))
    .option('--context-size <n>', 'largest context window', integerIn(16, 16_777_216))
    .option(
      '--max-arg-length <chars>',
      'longest string argument the local grammar lets the model write (default: unbounded)',
      integerIn(1, 100_000_000),
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
      '--tool-format <format>',
      "native (the protocol's tool calls) or text (@ns/tool{...} lines: for models without " +
        "tool calling; on the local model, under the compact language's grammar)",
      'native',
    );
}

const loaded = new Map<string, Promise<ResolvedClaw>>();

/** The manifest in force, loaded once per command: model choice and governance both read it. */
function manifestInForce(ctx: CliContext, explicit?: string): Promise<ResolvedClaw> {
  const key = `${ctx.dataDir}\0${explicit ?? ''}`;
  let claw = loaded.get(key);
  if (!claw) {
    const places = { dataDir: ctx.dataDir, resourcesDir: resourcesDirOf(ctx.appDir) };
    claw = loadActiveClaw(places, explicit).then((active) => active.claw);
    loaded.set(key, claw);
  }
  return claw;
}

/** A usage problem in the options, or undefined when they make sense. */
export function checkModelChoice(options: ModelChoiceOptions): string | undefined {
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

/** Finds the model and opens the engine, or explains how to get a model. */
export async function openEngine(
  ctx: CliContext,
  options: LocalModelOptions,
): Promise<LocalEngine | undefined> {
  const { catalog, locations } = await localSetup(ctx.appDir, ctx.dataDir);
  const found = await resolveChatModel(catalog, locations, {
    modelPath: options.modelPath,
    env: process.env,
  });
  if (!found) {
    ctx.stderr.write(`${noModelHelp(catalog, locations)}\n`);
    return undefined;
  }
  const engine = new LocalEngine({
    modelPath: found.path,
    runtime: { threads: options.threads },
    contextSize: options.contextSize,
    maxConversations: 1,
    idleTimeoutMs: 0,
  });
  await engine.load();
  return engine;
}

/** The model side of a run; `dispose` releases the local engine if one was opened. */
export interface ModelSetup {
  access: ModelAccess;
  dispose(): Promise<void>;
}

export async function chooseModel(
  ctx: CliContext,
  options: ModelChoiceOptions,
): Promise<ModelSetup> {
  let engine: LocalEngine | undefined;
  let opening: Promise<LocalEngine | undefined> | undefined;
  // The engine opens on first use: a manifest route may never reach the local provider.
  const local = (id: ProviderId): ModelProvider => ({
    id,
    protocol: 'local',
    async *stream(model, request) {
      opening ??= openEngine(ctx, options).then((opened) => {
        engine = opened;
        return opened;
      });
      const opened = await opening;
      if (!opened)
        throw new ModelError('unknown_model', 'no local model is installed', { provider: id });
      yield* new LocalModelProvider(opened, {
        id,
        sampling: { temperature: options.temperature },
      }).stream(model, request);
    },
  });
  const dispose = async () => {
    await engine?.dispose();
  };
  // Keys resolve through the keychain, the vault, then the environment (#9). The vault is
  // never unlocked by a prompt here: a run must not stop to ask for a passphrase.
  const secrets = createSecretStore({ dataDir: ctx.dataDir });
  if (options.provider) {
    const claw = await manifestInForce(ctx, options.manifest);
    const { router, models } = routerFromManifest(claw, { secrets, local });
    const model = models.get(options.provider);
    if (!model) {
      throw new ModelError(
        'unknown_model',
        `the manifest has no provider "${options.provider}" (it has ${[...models.keys()].join(', ')})`,
      );
    }
    return { access: viaRouter(router, { strategy: 'fallback', model }), dispose };
  }
  const protocol = PROTOCOL_NAMES[options.protocol] ?? 'local';
  // Text tool calls: the model writes @ns/tool{...} lines; the local engine under a grammar.
  const calls = (provider: ModelProvider): ModelProvider =>
    options.toolFormat === 'text'
      ? withTextToolCalls(provider, {
          grammar: provider.protocol === 'local',
          maxString: options.maxArgLength,
        })
      : provider;
  if (protocol === 'local')
    return { access: viaProvider(calls(local(providerId('local'))), 'local'), dispose };
  const provider = new HttpProvider({
    id: providerId(protocol),
    protocol,
    endpoint: options.endpoint,
    secretRef: options.apiKeyEnv,
    secrets,
    timeoutMs: options.timeout,
    idleTimeoutMs: options.timeout,
  });
  return { access: viaProvider(calls(provider), options.model ?? ''), dispose };
}

/**
 * The runtime over the profile database, governed by the manifest in force: its policy and
 * autonomy decide tool calls, approvals are asked on the terminal, every decision is audited
 * and tool output is screened.
 */
export async function openRuntime(
  ctx: CliContext,
  access: ModelAccess,
  options: LocalModelOptions & {
    manifest?: string;
    tools?: string;
    protocol?: string;
    provider?: string;
    toolFormat?: string;
  },
  readAnswer?: () => Promise<string | undefined>,
) {
  const claw = await manifestInForce(ctx, options.manifest);
  const db = openDatabase(profileDatabasePath(ctx.dataDir));
  const local =
    !options.provider && (PROTOCOL_NAMES[options.protocol ?? 'local'] ?? 'local') === 'local';
  let parts: AgentParts;
  try {
    parts = await openAgentParts({
      claw,
      db,
      dataDir: ctx.dataDir,
      appDir: ctx.appDir,
      model: access,
      tools: options.tools,
      system: options.system,
      threads: options.threads,
      contextWindow: options.contextSize,
      tokenizerModel: local
        ? await findLocalChatModel(ctx.dataDir, ctx.appDir, options.modelPath)
        : undefined,
      // The local engine decodes tool calls under a grammar; narrowed schemas make every call
      // it can emit pass validation (cloud models and the text format: schemas as declared).
      grammar:
        local && options.toolFormat !== 'text' ? { maxString: options.maxArgLength } : undefined,
      onContext: process.env.PINCER_SHOW_CONTEXT
        ? (built) => ctx.stderr.write(describeContext(built))
        : undefined,
    });
  } catch (error) {
    db.close();
    throw error;
  }
  const { governance, store } = parts;
  const stopApprovals = terminalApprovals(ctx, governance.broker, governance.scanner, readAnswer);
  const runtime = new AgentRuntime({
    ...parts.runtime,
    onEvent: governance.audit.record,
    generation: { maxTokens: options.maxTokens, temperature: options.temperature },
  });
  return {
    runtime,
    store,
    governance,
    close: async () => {
      stopApprovals();
      await parts.close();
      db.close();
    },
  };
}

export function openStore(ctx: CliContext) {
  const db = openDatabase(profileDatabasePath(ctx.dataDir));
  return { store: new RunStore(db), close: () => db.close() };
}

/**
 * What `pincer run` and `pincer chat` share: model options, which model a run talks to (the
 * local engine, one server, or the manifest's providers with fallback), and the runtime over
 * the profile database.
 */
import { mkdir } from 'node:fs/promises';
import type { Command } from 'commander';
import {
  DEFAULT_ASSISTANT_SYSTEM as DEFAULT_SYSTEM,
  DEFAULT_ASSISTANT_TOOLS as DEFAULT_TOOLS,
} from '../core/assistant/types.js';
import { loadActiveClaw, type ResolvedClaw, resourcesDirOf } from '../core/ckp/index.js';
import { LocalEngine } from '../core/local/engine.js';
import { noModelHelp, resolveChatModel } from '../core/local/model-manager.js';
import { LocalModelProvider } from '../core/local/provider.js';
import { localSetup } from '../core/local/setup.js';
import { describeContext } from '../core/memory/context.js';
import { findEmbeddingModel, findLocalChatModel } from '../core/memory/open.js';
import { retentionFromManifest } from '../core/memory/retention.js';
import { openSessionMemory } from '../core/memory/session.js';
import { ModelError } from '../core/models/errors.js';
import { routerFromManifest } from '../core/models/from-manifest.js';
import { ADAPTERS, type HttpProtocol, HttpProvider } from '../core/models/http-provider.js';
import { type ProviderId, providerId } from '../core/models/ids.js';
import { withTextToolCalls } from '../core/models/text-tools.js';
import type { ModelProvider } from '../core/models/types.js';
import { governanceFromManifest } from '../core/policy/from-manifest.js';
import { screenedTools } from '../core/policy/screened-tools.js';
import { type ModelAccess, viaProvider, viaRouter } from '../core/runtime/hooks.js';
import { AgentRuntime } from '../core/runtime/runtime.js';
import { RunStore } from '../core/runtime/store.js';
import { createSandbox, settingsFromManifest } from '../core/sandbox/index.js';
import { createSecretStore } from '../core/secrets/index.js';
import { openDatabase, profileDatabasePath } from '../core/storage/database.js';
import { BUILTIN_TOOLS } from '../core/tools/builtins/index.js';
import { memoryNote } from '../core/tools/builtins/memory-note.js';
import { ToolRegistry } from '../core/tools/registry.js';
import type { CliContext } from './context.js';
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
    .option('--max-tokens <n>', 'longest reply in tokens', (v) => Number.parseInt(v, 10), 1024)
    .option('--temperature <t>', 'sampling temperature (0 = greedy)', Number.parseFloat, 0.7)
    .option('--threads <n>', 'CPU threads (default: all cores)', (v) => Number.parseInt(v, 10))
    .option('--context-size <n>', 'largest context window', (v) => Number.parseInt(v, 10))
    .option(
      '--max-arg-length <chars>',
      'longest string argument the local grammar lets the model write (default: unbounded)',
      (v) => Number.parseInt(v, 10),
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
      (v) => Number.parseInt(v, 10),
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
  const store = new RunStore(db);
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  registry.register(memoryNote);
  registry.registerManifestTools(claw);
  const governance = governanceFromManifest(claw, {
    db,
    dataDir: ctx.dataDir,
    facts: (name) => registry.facts(name),
  });
  await mkdir(governance.workspace, { recursive: true });
  const allow = (options.tools ?? DEFAULT_TOOLS)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  // Tools run confined (#8); a sandbox level this machine cannot enforce stops here (-32010).
  const sandbox = await createSandbox({
    settings: settingsFromManifest(claw, { workspace: governance.workspace, dataDir: ctx.dataDir }),
  });
  // Memory, skills and the context builder (#10) share the profile database.
  const memory = await openSessionMemory({
    executor: sandbox.executor,
    db,
    workspace: governance.workspace,
    embeddingModel: await findEmbeddingModel(ctx.dataDir, ctx.appDir, { env: process.env }),
    threads: options.threads,
    preamble: options.system ?? DEFAULT_SYSTEM,
    personality: claw.identity.spec.personality,
    retention: retentionFromManifest(claw),
    isToolAllowed: (name) => registry.visible(allow).some((tool) => tool.name === name),
    contextWindow: options.contextSize,
    summarizer: access,
    tokenizerModel:
      !options.provider && (PROTOCOL_NAMES[options.protocol ?? 'local'] ?? 'local') === 'local'
        ? await findLocalChatModel(ctx.dataDir, ctx.appDir, options.modelPath)
        : undefined,
    onContext: process.env.PINCER_SHOW_CONTEXT
      ? (built) => ctx.stderr.write(describeContext(built))
      : undefined,
  });
  const tools = registry.host({
    allow,
    executor: memory.executor,
    workspace: governance.workspace,
    // The local engine decodes tool calls under a grammar; narrowed schemas make every call it
    // can emit pass validation (manifest routes may reach cloud models: schemas as declared).
    grammar:
      !options.provider &&
      options.toolFormat !== 'text' &&
      (PROTOCOL_NAMES[options.protocol ?? 'local'] ?? 'local') === 'local'
        ? { maxString: options.maxArgLength }
        : undefined,
  });
  const stopApprovals = terminalApprovals(ctx, governance.broker, governance.scanner, readAnswer);
  const runtime = new AgentRuntime({
    store,
    model: access,
    tools: screenedTools(tools, governance.scanner),
    policy: governance.policy,
    approvals: governance.broker,
    redact: (value) => governance.scanner.redactValue(value),
    onEvent: governance.audit.record,
    caps: governance.caps,
    system: (request) => memory.system(request),
    history: memory.history,
    generation: { maxTokens: options.maxTokens, temperature: options.temperature },
  });
  return {
    runtime,
    store,
    governance,
    close: () => {
      stopApprovals();
      void memory.close();
      void sandbox.close();
      db.close();
    },
  };
}

export function openStore(ctx: CliContext) {
  const db = openDatabase(profileDatabasePath(ctx.dataDir));
  return { store: new RunStore(db), close: () => db.close() };
}

/**
 * The agent's composition root. It reads the manifest once, decides the model once (and again
 * on `selectModel`), and opens, in this order, the profile database, the run store, the tool
 * registry, governance (policy, approvals, audit, scanner), the sandbox, memory (skills,
 * context, compaction) and the runtime; `close` releases them in reverse. Every surface
 * (`pincer run`, `chat`, `gateway`, the desktop app and whatever comes later) gets its agent
 * here and adds only its own surface: where approvals are answered and who hears run events.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Autonomy, RiskTier } from '../../../shared/ipc-schemas.js';
import { readRemoteAgents, remoteAgentTool } from '../a2a/index.js';
import {
  autonomyOf,
  loadActiveClaw,
  type ResolvedClaw,
  resourcesDirOf,
  secretNamesOf,
} from '../ckp/index.js';
import { PincerError } from '../errors.js';
import type { ModelCatalog, ModelLocations, SkippedModel } from '../local/index.js';
import { localSetup, prefixCacheDir } from '../local/index.js';
import { McpTools, readMcpServers } from '../mcp/index.js';
import type { BuiltContext } from '../memory/index.js';
import {
  findEmbeddingModel,
  type MemoryEffect,
  memoryNote,
  memoryPolicyFromManifest,
  memoryToolAccess,
  openSessionMemory,
  retentionFromManifest,
  type SessionMemory,
  withMemory,
} from '../memory/index.js';
import { OutsideSpend } from '../models/index.js';
import { worldModelGuarded } from '../planning/index.js';
import type { ToolFacts } from '../policy/index.js';
import {
  type Governance,
  governanceFromManifest,
  InputBroker,
  inputTimeoutMs,
  manifestToolFacts,
  originGuarded,
} from '../policy/index.js';
import { Redactor } from '../redaction/index.js';
import type { RunEvent } from '../runtime/index.js';
import {
  AgentRuntime,
  AuditLog,
  DEFAULT_GUARDS,
  type Guards,
  originOf,
  RunStore,
} from '../runtime/index.js';
import {
  type BackendInfo,
  type BackendKind,
  createSandbox,
  detectBackend,
  settingsFromManifest,
  type WorkerCounts,
} from '../sandbox/index.js';
import { createSecretStore, loadKnownSecrets, type SecretStore } from '../secrets/index.js';
import {
  type Db,
  openDatabase,
  privateProfileDatabase,
  profileDatabasePath,
} from '../storage/index.js';
import type { Telemetry } from '../telemetry/index.js';
import type { SessionId } from '../terms.js';
import { BUILTIN_TOOLS, ToolRegistry } from '../tools/index.js';
import { AutonomySwitch } from './autonomy.js';
import {
  type ChildSpec,
  DEFAULT_DELEGATION,
  Delegation,
  narrowedPolicy,
  narrowedTools,
  partitionedMemory,
} from './delegation.js';
import type { LocalModelSettings, ModelChoice } from './model-choice.js';
import { ModelSwitch } from './model-switch.js';
import { screenedDescription, screenedTools } from './screened-tools.js';
import { plannersOf, simulatorsOf } from './world-models.js';

/** Tools a model sees unless told otherwise (every surface alike); the policy decides every call. */
export const DEFAULT_TOOLS = 'fs/*,sys/exec,net/fetch,memory/*,mcp/**,a2a/*';
export const DEFAULT_SYSTEM =
  'You are Pincer, a helpful assistant running locally. Answer concisely.';
const SUB_AGENT_NOTE =
  'You are a sub-agent: another agent delegated the task in the user message to you. Do it with the tools you have and answer with the result only; nobody will read a question.';

export interface AgentOptions {
  dataDir: string;
  /** The installation: its models/catalog.json and resources/claw.yaml. */
  appDir: string;
  /** An explicit claw.yaml; else the user's, else the shipped default. */
  manifest?: string;
  model: ModelChoice;
  /** The local engine's settings (threads, context, sampling, grammar bounds). */
  local?: LocalModelSettings;
  /** Tool name globs, comma-separated (default DEFAULT_TOOLS; "" for none). */
  tools?: string;
  system?: string;
  /** The folder tools work in (an existing directory the user chose); else the profile's own. */
  workspace?: string;
  generation?: { maxTokens?: number; temperature?: number };
  guards?: Partial<Guards>;
  /** Overrides the shipped model catalog (tests point it at a local file server). */
  catalog?: ModelCatalog;
  /** Overrides the secrets chain (the app's safeStorage vault; tests' temp vault). */
  secrets?: SecretStore;
  /** Told what each context build left out and why (`PINCER_SHOW_CONTEXT`). */
  onContext?: (built: BuiltContext) => void;
  /** Told about each model file the local model search passed over as unusable. */
  onModelSkipped?: (skipped: SkippedModel) => void;
  env?: Record<string, string | undefined>;
  /**
   * A surface that can show an MCP server's form to a person is attached (the chat UI, the
   * terminal of `pincer run`/`chat`): servers are told they may ask (elicitation). Left out
   * where nobody could answer (`pincer serve`, `pincer mcp serve`, the daemon), so servers don't.
   */
  askForInput?: boolean;
  /**
   * A long-lived process (the gateway, the daemon, the app): one tool worker per lane is started
   * now and kept ready, each call runs in a fresh one (sandbox.ts `warm`). Else (a one-shot CLI
   * command) the workers start with the first tool that needs one.
   */
  warmTools?: boolean;
}

export interface Agent {
  dataDir: string;
  claw: ResolvedClaw;
  store: RunStore;
  registry: ToolRegistry;
  /**
   * The manifest's governance, the audit log that records every run event, and the input broker
   * where the forms MCP servers ask mid-call wait for an answer.
   */
  governance: Governance & { audit: AuditLog; inputs: InputBroker };
  /** The policy hook the runtime asks: the manifest's autonomy unless a surface switches it. */
  autonomy: AutonomySwitch;
  memory: SessionMemory;
  secrets: SecretStore;
  /** The one redactor every text leaving this agent passes through (see `redaction/`). */
  redactor: Redactor;
  models: ModelSwitch;
  catalog: ModelCatalog;
  locations: ModelLocations;
  runtime: AgentRuntime;
  /** The limits every run of this agent stays within (no brief or swarm task goes past them). */
  guards: Guards;
  /** Sub-agents (agents/delegate): children are runtimes of this root, never wider than their parent. */
  delegation: Delegation;
  /** The MCP servers the registry's MCP tools come from, and how each is doing. */
  mcp: McpTools;
  /** Spans and counters for the manifest's Telemetry exporters; absent when none is declared. */
  telemetry?: Telemetry;
  /** The OS confinement the tools run under, as probed at start-up. */
  sandboxBackend: BackendKind;
  /** The sandboxed tool workers as they are now: how many started, which wait for a call. */
  toolWorkers(): WorkerCounts;
  /** Registry facts, then the manifest's declarations: what policy and views know of a tool. */
  facts(name: string): ToolFacts | undefined;
  /** Every event of every run, after the audit recorded it; returns the unsubscribe function. */
  onRunEvent(listener: (event: RunEvent) => void): () => void;
  /** Switches model or provider for the next run; refused while a run is in progress. */
  selectModel(choice: ModelChoice): Promise<void>;
  /** The user's standing instructions and temperature, applied from the next model call. */
  setPreferences(next: AgentPreferences): void;
  /** The tools a person's run may be offered (the allow list's, MCP servers' included). */
  offeredTools(): OfferedTool[];
  /**
   * Where the tools a conversation turned off are looked up (at each model call and each
   * decision): its runs are not offered them, their policy refuses them, and so are children.
   */
  setTurnedOffTools(lookup: (sessionId: SessionId) => ReadonlySet<string>): void;
  /** Releases everything in reverse order of opening. Runs still going are cancelled first. */
  close(): Promise<void>;
}

export interface OfferedTool {
  name: string;
  description: string;
  tier: RiskTier;
  source: 'builtin' | 'manifest' | 'mcp';
}

export interface AgentPreferences {
  /** Added after the identity and memory context; empty adds nothing. */
  systemPrompt: string;
  /** null keeps the launch's (or the provider's) default. */
  temperature: number | null;
}

/** The user's own instructions follow the agent's context, marked as theirs. */
function withStandingPrompt(system: string, preferences: AgentPreferences): string {
  const prompt = preferences.systemPrompt.trim();
  return prompt ? `${system}\n\n# The user's standing instructions\n${prompt}` : system;
}

/** What one runtime of the agent chooses; everything else comes from the root (`runtimeOf`). */
type RuntimePart = Pick<
  ConstructorParameters<typeof AgentRuntime>[0],
  'model' | 'system' | 'history' | 'generation' | 'guards'
> & {
  /** Tool name globs the runtime's host shows (the policy still narrows per run). */
  tools: readonly string[];
  /** Where its tools run (with its memory access). */
  executor: Parameters<ToolRegistry['host']>[0]['executor'];
};

/** Something the root opened, and how to release it. */
type Release = () => void | Promise<void>;

export async function openAgent(options: AgentOptions): Promise<Agent> {
  const env = options.env ?? process.env;
  // The sandbox probes (child processes) run while the manifest is read and parsed.
  const backend = detectBackend();
  backend.catch(() => undefined);
  const { claw } = await loadActiveClaw(
    { dataDir: options.dataDir, resourcesDir: resourcesDirOf(options.appDir) },
    options.manifest,
  );
  const setup = await localSetup(options.appDir, options.dataDir);
  const catalog = options.catalog ?? setup.catalog;
  const opened: Release[] = [];
  const releaseAll = async () => {
    for (const release of opened.reverse()) await release();
  };
  try {
    const db = openDatabase(privateProfileDatabase(options.dataDir));
    opened.push(() => {
      db.close();
    });
    return await assemble(
      options,
      { claw, catalog, locations: setup.locations, db, env, backend },
      opened,
      releaseAll,
    );
  } catch (error) {
    await releaseAll();
    throw error;
  }
}

async function assemble(
  options: AgentOptions,
  given: {
    claw: ResolvedClaw;
    catalog: ModelCatalog;
    locations: ModelLocations;
    db: Db;
    env: Record<string, string | undefined>;
    backend: Promise<BackendInfo>;
  },
  opened: Release[],
  releaseAll: () => Promise<void>,
): Promise<Agent> {
  const { claw, catalog, locations, db, env } = given;
  // Keys resolve through the keychain, the vault, then the environment. The vault is never
  // unlocked by a prompt here: a run must not stop to ask for a passphrase.
  const secrets = options.secrets ?? createSecretStore({ dataDir: options.dataDir });
  opened.push(() => secrets.close());
  // The agent's one redactor: every value the store reads from now on is known to it, and every
  // text leaving the agent (tool output, replies, events, telemetry, errors) goes through it.
  const redactor = new Redactor();
  secrets.redactInto(redactor);
  const models = await ModelSwitch.open(
    {
      claw,
      secrets,
      catalog,
      locations,
      local: options.local ?? {},
      env,
      prefixCacheDir: prefixCacheDir(options.dataDir),
      onSkip: options.onModelSkipped,
    },
    options.model,
  );
  opened.push(() => models.dispose());

  const store = new RunStore(db);
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  registry.register(memoryNote);
  registry.registerManifestTools(claw);
  const declared = manifestToolFacts(claw);
  const facts = (name: string) => registry.facts(name) ?? declared.get(name);
  const governed = governanceFromManifest(claw, {
    dataDir: options.dataDir,
    facts: (name) => registry.facts(name),
    workspace: options.workspace,
    redactor,
  });
  const governance = {
    ...governed,
    audit: new AuditLog(db, governed.scanner),
    inputs: new InputBroker({
      sessionOf: (runId) => store.getRun(runId)?.sessionId,
      timeoutMs: inputTimeoutMs(claw),
    }),
  };
  // Every stored secret is known to the scanner before the first tool runs, not only those read;
  // the vault key cached by reading them is zeroed (the store unlocks again when next used).
  await loadKnownSecrets(secrets, redactor, secretNamesOf(claw));
  // Telemetry only when the manifest declares it: the OpenTelemetry SDK is not even loaded
  // otherwise. It closes after the runtime, so runs cancelled at close still end their spans.
  const telemetry: Telemetry | undefined = claw.telemetry
    ? await (await import('../telemetry/index.js')).openTelemetry(claw.telemetry.spec, {
        screen: (value) => redactor.redactValue(value),
        secret: async (name) => (await secrets.get(name))?.value,
        profile: { path: profileDatabasePath(options.dataDir), db },
      })
    : undefined;
  if (telemetry) opened.push(() => telemetry.close());
  secrets.close();
  await mkdir(governance.workspace, { recursive: true });
  const allow = (options.tools ?? DEFAULT_TOOLS)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

  // Tools run confined; a sandbox level this machine cannot enforce stops here (-32010). In a
  // one-shot command the workers start with the first tool that needs one (a text turn starts
  // none); a long-lived process starts one per lane now so a call never waits for a start.
  const sandbox = await createSandbox({
    settings: settingsFromManifest(claw, {
      workspace: governance.workspace,
      dataDir: options.dataDir,
    }),
    backend: await given.backend,
    start: options.warmTools ? 'warm' : 'first-use',
  });
  opened.push(() => sandbox.close());

  // MCP servers are a tool source: the manifest's mcp_source tools and the user's list, started
  // through the sandbox; their calls take the same path as every other tool's.
  const outsideSpend = new OutsideSpend();
  const mcp = await McpTools.open(
    {
      registry,
      spawn: sandbox.spawnServer,
      secrets,
      home: governance.workspace,
      manifestNetwork: sandbox.settings.network.mode === 'allow-all',
      // A server's sampling request is answered by the agent's model, under its providers' limits.
      sampler: () => (models.available ? models.access : undefined),
      // ...and charged to the run whose tool call asked for it, against that run's budget.
      spend: outsideSpend,
      // A server's form goes to the surface that can show it; with none, it is not offered.
      ...(options.askForInput ? { inputs: governance.inputs } : {}),
      // Its descriptions are untrusted text the model reads: screened like a tool's output.
      screen: (text) => screenedDescription(governance.scanner, text),
    },
    claw,
    await readMcpServers(options.dataDir),
  );
  opened.push(() => mcp.close());
  // Remote A2A agents a person added (`pincer agents add`): a tool each, their cards' words
  // screened like an MCP server's descriptions and their answers like any tool's output.
  for (const [name, entry] of Object.entries(await readRemoteAgents(options.dataDir))) {
    if (entry.disabled) continue;
    registry.register(
      remoteAgentTool(name, entry, {
        secrets,
        screen: (text) => screenedDescription(governance.scanner, text),
      }),
    );
  }

  const memory = await openSessionMemory({
    executor: sandbox.executor,
    db,
    workspace: governance.workspace,
    embeddingModel: await findEmbeddingModel(options.dataDir, options.appDir, { env }),
    threads: options.local?.threads,
    // The local engine's window once loaded, else the size it will load with (a setting).
    contextWindow: () =>
      (models.kind === 'local'
        ? (models.contextWindow ?? models.localContextSize)
        : options.local?.contextSize) ?? 8192,
    tokenizerModel: models.tokenizerModel,
    preamble: options.system ?? DEFAULT_SYSTEM,
    personality: claw.identity.spec.personality,
    retention: retentionFromManifest(claw),
    policy: memoryPolicyFromManifest(claw),
    // CKP 0.3.0: telemetry surfaces when the store's extensions change a ranking or what is kept.
    ...(telemetry && claw.telemetry?.spec.events.memory_ops
      ? { onEffect: (effect: MemoryEffect) => memoryEffectSpan(telemetry, effect) }
      : {}),
    isToolAllowed: (name) => registry.visible(allow).some((tool) => tool.name === name),
    // Older turns are summarized with the session's own model past 85% of the window.
    summarizer: models.access,
    onContext: options.onContext,
  });
  opened.push(() => memory.close());
  // The context is measured in the units of the model that reads it.
  models.onSwitch(() => memory.useTokenizer(models.tokenizerModel));

  // Autonomy: the manifest's level unless a surface overrides it for this process.
  const autonomy = new AutonomySwitch(autonomyOf(claw) as Autonomy, governance.policy, (level) =>
    governance.policy.withAutonomy(level),
  );
  // The manifest's world models are asked before a call with side effects (CKP 0.3.0): their
  // prediction goes with the decision, and a cautious fallback can only make it stricter.
  const providersOpened: Array<() => Promise<void>> = [];
  opened.push(async () => {
    await Promise.all(providersOpened.map((close) => close()));
  });
  const planned = worldModelGuarded(
    autonomy,
    plannersOf(claw, {
      policy: autonomy,
      tools: registry.host({
        allow: simulatorsOf(claw),
        executor: sandbox.executor,
        workspace: governance.workspace,
      }),
      provider: async (name) => {
        const provider = await ModelSwitch.open(
          { claw, secrets, catalog, locations, local: options.local ?? {}, env },
          { kind: 'provider', name },
        );
        providersOpened.push(async () => provider.dispose());
        return provider.access;
      },
    }),
  );

  const listeners = new Set<(event: RunEvent) => void>();
  const publish = (event: RunEvent) => {
    governance.audit.record(event);
    telemetry?.consume(event);
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // One surface failing (a socket closing mid-send) must not stop the others or the run.
      }
    }
  };
  const preferences: AgentPreferences = { systemPrompt: '', temperature: null };

  // A run is offered what it may use (`Delegation.toolsOf`: the allow list less what its
  // conversation turned off, or a sub-agent's brief), and its policy refuses the rest. A run
  // with an origin (a channel, a schedule, a protocol client, a swarm task, and every child of
  // such a run) meets the origin guard: nobody's silence approves anything for it.
  let turnedOff: (sessionId: SessionId) => ReadonlySet<string> = () => new Set();
  const policy = narrowedPolicy(
    originGuarded(planned, (runId) => {
      const run = store.getRun(runId);
      return run ? originOf(run) : undefined;
    }),
    (context) => delegation.toolsOf(context.runId),
    (name, context) => delegation.refusal(context.runId, name),
  );

  /**
   * The one factory of runtimes, the root's and every sub-agent's: the same store, policy (with
   * the origin guard), broker, inputs, scanner, caps and audit. What a part may choose is its
   * model, tools, memory partition, system prompt, history shaping and guards.
   */
  const runtimeOf = (part: RuntimePart): AgentRuntime =>
    new AgentRuntime({
      store,
      model: part.model,
      outsideSpend,
      tools: narrowedTools(
        screenedTools(
          registry.host({
            allow: part.tools,
            executor: part.executor,
            workspace: governance.workspace,
          }),
          governance.scanner,
        ),
        (runId) => delegation.toolsOf(runId),
      ),
      policy,
      approvals: governance.broker,
      inputs: governance.inputs,
      redactor,
      caps: governance.caps,
      system: part.system,
      ...(part.history ? { history: part.history } : {}),
      generation: part.generation,
      guards: part.guards,
      onEvent: publish,
    });

  const runtime = runtimeOf({
    model: models.access,
    tools: allow,
    executor: memory.executor,
    system: async (request) => withStandingPrompt(await memory.system(request), preferences),
    history: memory.history,
    generation: () => ({
      ...options.generation,
      ...(preferences.temperature !== null ? { temperature: preferences.temperature } : {}),
    }),
    guards: options.guards,
  });
  opened.push(() => runtime.stopAll());

  // A sub-agent's runtime: its own tool subset, budget and memory partition.
  const childRuntime = (spec: ChildSpec): AgentRuntime =>
    runtimeOf({
      model: spec.model,
      tools: spec.tools,
      executor: withMemory(
        sandbox.executor,
        partitionedMemory(memoryToolAccess(memory.store), spec.partition),
      ),
      system: async (request) => `${await memory.system(request)}\n\n${SUB_AGENT_NOTE}`,
      generation: options.generation,
      guards: spec.guards,
    });
  const limits = claw.identity.spec.delegation;
  const guards: Guards = { ...DEFAULT_GUARDS, ...options.guards };
  const delegation = new Delegation({
    store,
    registry,
    rootTools: allow,
    turnedOff: (sessionId) => turnedOff(sessionId),
    ceiling: guards,
    limits: limits
      ? { maxDepth: limits.max_depth, maxChildren: limits.max_children }
      : DEFAULT_DELEGATION,
    childRuntime,
    defaultModel: models.access,
    openModel: async (name) => {
      const opened = await ModelSwitch.open(
        { claw, secrets, catalog, locations, local: options.local ?? {}, env },
        { kind: 'provider', name },
      );
      return { access: opened.access, release: () => opened.dispose() };
    },
  });
  registry.register(delegation.tool);
  opened.push(() => delegation.stopAll());

  return {
    dataDir: options.dataDir,
    claw,
    store,
    registry,
    governance,
    autonomy,
    memory,
    secrets,
    redactor,
    models,
    catalog,
    locations,
    runtime,
    guards,
    delegation,
    mcp,
    ...(telemetry ? { telemetry } : {}),
    sandboxBackend: sandbox.backend.kind,
    toolWorkers: () => sandbox.workers(),
    facts,
    onRunEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setPreferences(next) {
      Object.assign(preferences, next);
    },
    offeredTools: () =>
      registry.visible(allow).map((tool) => ({
        name: tool.name,
        description: tool.description,
        tier: facts(tool.name)?.tier ?? 'unsafe',
        source: tool.source,
      })),
    setTurnedOffTools(lookup) {
      turnedOff = lookup;
    },
    async selectModel(choice) {
      if (runtime.activeRuns > 0)
        throw new PincerError('conflict', 'a run is in progress: wait or cancel it first');
      await models.select(choice);
    },
    async close() {
      listeners.clear();
      await releaseAll();
    },
  };
}

/** One span per memory effect: its own trace, as no run's events describe it. */
function memoryEffectSpan(telemetry: Telemetry, effect: MemoryEffect): void {
  const attributes: Record<string, string | number> = { 'pincer.memory.op': effect.op };
  for (const [key, value] of Object.entries(effect))
    if (key !== 'op' && value !== undefined) attributes[`pincer.memory.${key}`] = value;
  telemetry
    .span({
      name: `memory.${effect.op}`,
      traceId: `trc-memory-${randomUUID()}`,
      spanId: randomBytes(8).toString('hex'),
      attributes,
    })
    .end();
}

/**
 * The parts every agent surface wires the same way, `pincer run`/`chat` and the app alike: the
 * run store, the tool registry (built-ins, memory notes, the manifest's tools), governance from
 * the manifest, tools confined by the sandbox (#8), and memory, skills, context and compaction
 * (#10) on the profile database. Each surface adds what is its own: where approvals are asked,
 * who hears run events, and (in the app) an autonomy switch.
 */
import { mkdir } from 'node:fs/promises';
import { type ResolvedClaw, secretNamesOf } from '../ckp/index.js';
import type { BuiltContext } from '../memory/context.js';
import { findEmbeddingModel } from '../memory/open.js';
import { retentionFromManifest } from '../memory/retention.js';
import { openSessionMemory, type SessionMemory } from '../memory/session.js';
import { type Governance, governanceFromManifest } from '../policy/from-manifest.js';
import { screenedTools } from '../policy/screened-tools.js';
import type { ModelAccess, ToolHost } from '../runtime/hooks.js';
import type { RuntimeDeps } from '../runtime/runtime.js';
import { RunStore } from '../runtime/store.js';
import { createSandbox, type Sandbox, settingsFromManifest } from '../sandbox/index.js';
import { loadKnownSecrets, type SecretStore } from '../secrets/index.js';
import type { Db } from '../storage/database.js';
import { BUILTIN_TOOLS } from '../tools/builtins/index.js';
import { memoryNote } from '../tools/builtins/memory-note.js';
import type { GrammarBounds } from '../tools/local-grammar.js';
import { ToolRegistry } from '../tools/registry.js';
import { DEFAULT_ASSISTANT_SYSTEM, DEFAULT_ASSISTANT_TOOLS } from './types.js';

export interface AgentPartsOptions {
  claw: ResolvedClaw;
  db: Db;
  dataDir: string;
  appDir: string;
  model: ModelAccess;
  /** The secrets chain: every value in it is redacted from tool output from the start. */
  secrets: SecretStore;
  /** Tool name globs, comma-separated (default DEFAULT_ASSISTANT_TOOLS). */
  tools?: string;
  system?: string;
  threads?: number;
  contextWindow?: number;
  /** The local chat model's GGUF, whose tokenizer measures the context. */
  tokenizerModel?: string;
  /** Set when the local engine decodes native tool calls: schemas narrowed to its grammar. */
  grammar?: GrammarBounds;
  onContext?: (built: BuiltContext) => void;
}

export interface AgentParts {
  store: RunStore;
  registry: ToolRegistry;
  governance: Governance;
  allow: string[];
  memory: SessionMemory;
  /** Screened tool host, confined by the sandbox. */
  tools: ToolHost;
  /** Runtime dependencies shared by every surface; callers add approvals' surface and events. */
  runtime: Pick<
    RuntimeDeps,
    'store' | 'model' | 'tools' | 'policy' | 'approvals' | 'redact' | 'caps' | 'system' | 'history'
  >;
  /** Stops memory and the sandbox's workers (the database belongs to the caller). */
  close(): Promise<void>;
}

export async function openAgentParts(options: AgentPartsOptions): Promise<AgentParts> {
  const { claw, db } = options;
  const store = new RunStore(db);
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  registry.register(memoryNote);
  registry.registerManifestTools(claw);
  const governance = governanceFromManifest(claw, {
    db,
    dataDir: options.dataDir,
    facts: (name) => registry.facts(name),
  });
  // Every stored secret is known to the scanner before the first tool runs, not only those read.
  await loadKnownSecrets(options.secrets, governance.scanner.redactor, secretNamesOf(claw));
  await mkdir(governance.workspace, { recursive: true });
  const allow = (options.tools ?? DEFAULT_ASSISTANT_TOOLS)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  // Tools run confined; a sandbox level this machine cannot enforce stops here (-32010).
  const sandbox: Sandbox = await createSandbox({
    settings: settingsFromManifest(claw, {
      workspace: governance.workspace,
      dataDir: options.dataDir,
    }),
  });
  const memory = await openSessionMemory({
    executor: sandbox.executor,
    db,
    workspace: governance.workspace,
    embeddingModel: await findEmbeddingModel(options.dataDir, options.appDir, { env: process.env }),
    threads: options.threads,
    contextWindow: options.contextWindow,
    tokenizerModel: options.tokenizerModel,
    preamble: options.system ?? DEFAULT_ASSISTANT_SYSTEM,
    personality: claw.identity.spec.personality,
    retention: retentionFromManifest(claw),
    isToolAllowed: (name) => registry.visible(allow).some((tool) => tool.name === name),
    // Older turns are summarized with the session's own model past 85% of the window.
    summarizer: options.model,
    onContext: options.onContext,
  }).catch(async (error: unknown) => {
    await sandbox.close();
    throw error;
  });
  const tools = screenedTools(
    registry.host({
      allow,
      executor: memory.executor,
      workspace: governance.workspace,
      grammar: options.grammar,
    }),
    governance.scanner,
  );
  return {
    store,
    registry,
    governance,
    allow,
    memory,
    tools,
    runtime: {
      store,
      model: options.model,
      tools,
      policy: governance.policy,
      approvals: governance.broker,
      redact: (value) => governance.scanner.redactValue(value),
      caps: governance.caps,
      system: (request) => memory.system(request),
      history: memory.history,
    },
    close: async () => {
      await memory.close();
      await sandbox.close();
    },
  };
}

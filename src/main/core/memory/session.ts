/**
 * Memory for an agent session, in one call: the memory store and skills registry on the profile
 * database, the context builder behind the runtime's `system` hook, and the executor wrapper
 * that hands memory to the memory tools.
 */
import { lazyLocalEmbedder } from '../local/index.js';
import type { ModelAccess } from '../models/index.js';
import type { HistoryShaper } from '../runtime/index.js';
import { SkillRegistry } from '../skills/index.js';
import type { Db } from '../storage/index.js';
import type { ToolExecutor } from '../tools/index.js';
import { inProcessExecutor } from '../tools/index.js';
import type { MemoryPolicy } from './cognition.js';
import { Compactor, compactingHistory, summarizeWith } from './compaction.js';
import {
  type BuiltContext,
  budgetFor,
  ContextBuilder,
  type ContextRequest,
  estimateTokens,
} from './context.js';
import type { Retention } from './forgetting.js';
import { type MemoryEffect, MemoryStore } from './store.js';
import { localTokenCounter, type TokenCounter } from './tokens.js';
import { memoryToolAccess, withMemory } from './tool-access.js';

export interface SessionMemoryOptions {
  db: Db;
  workspace: string;
  /** A GGUF embedding model: hybrid search and similarity matching of skills. */
  embeddingModel?: string;
  threads?: number;
  preamble?: string;
  personality?: string;
  isToolAllowed: (name: string) => boolean;
  /**
   * The model's context window in tokens (default 8192, the local engine's default); read at
   * each use when a function, so a new context size applies without reopening memory.
   */
  contextWindow?: number | (() => number);
  /** Wrapped so tools reach memory; in-process by default. */
  executor?: ToolExecutor;
  /** The local chat model's GGUF: its tokenizer measures the context (else an estimate). */
  tokenizerModel?: string;
  /** CKP retention for notes, applied when the session opens. */
  retention?: Retention;
  /** CKP 0.3.0 store extensions (salience, forgetting, merge, provenance); forgetting runs at open. */
  policy?: MemoryPolicy;
  /** Told when the policy changed a ranking or what is kept. */
  onEffect?: (effect: MemoryEffect) => void;
  /** The clock of daily threads and notes (tests move it). */
  now?: () => Date;
  /** Told what each build left out and why. */
  onContext?: (built: BuiltContext) => void;
  /** The session's model: it summarizes older turns once history passes 85% of the window. */
  summarizer?: ModelAccess;
}

export interface SessionMemory {
  store: MemoryStore;
  skills: SkillRegistry;
  executor: ToolExecutor;
  system(request?: ContextRequest): Promise<string>;
  /** Measures the context with another GGUF's tokenizer (undefined: the estimate). */
  useTokenizer(modelPath: string | undefined): Promise<void>;
  /** The runtime's history hook (compaction), when a summarizer was given. */
  history?: HistoryShaper;
  close(): Promise<void>;
}

export async function openSessionMemory(options: SessionMemoryOptions): Promise<SessionMemory> {
  // Loaded on the first search that has vectors to compare with, not when the session opens.
  const embedder = options.embeddingModel
    ? await lazyLocalEmbedder({
        modelPath: options.embeddingModel,
        runtime: { threads: options.threads },
      })
    : undefined;
  const windowOf = () =>
    (typeof options.contextWindow === 'function'
      ? options.contextWindow()
      : options.contextWindow) ?? 8192;
  let tokens: TokenCounter | undefined;
  // A tokenizer that cannot open only costs precision: fall back to the estimate.
  const openTokenizer = (modelPath: string | undefined) =>
    modelPath ? localTokenCounter(modelPath).catch(() => undefined) : Promise.resolve(undefined);
  // Read at each count, so a model switch changes the unit without rebuilding memory.
  const countTokens = (text: string) => (tokens ? tokens.count(text) : estimateTokens(text));
  try {
    tokens = await openTokenizer(options.tokenizerModel);
    const store = MemoryStore.open(options.db, {
      embedder,
      ...(options.policy ? { policy: options.policy } : {}),
      ...(options.onEffect ? { onEffect: options.onEffect } : {}),
    });
    const skills = SkillRegistry.open(options.db, { embedder });
    if (options.retention) store.applyRetention(options.retention);
    await store.applyForgetting();
    const builder = new ContextBuilder({
      workspace: options.workspace,
      preamble: options.preamble,
      personality: options.personality,
      memory: store,
      skills,
      isToolAllowed: options.isToolAllowed,
      budgetTokens: () => budgetFor(windowOf()),
      countTokens,
      now: options.now,
    });
    return {
      store,
      skills,
      executor: withMemory(
        options.executor ?? inProcessExecutor,
        memoryToolAccess(store, options.now),
      ),
      history: options.summarizer
        ? compactingHistory(
            new Compactor(options.db, {
              summarize: summarizeWith(options.summarizer),
              countTokens,
            }),
            windowOf,
          )
        : undefined,
      system: async (request = {}) => {
        const built = await builder.build(request);
        options.onContext?.(built);
        return built.text;
      },
      useTokenizer: async (modelPath) => {
        const previous = tokens;
        tokens = await openTokenizer(modelPath);
        await previous?.dispose();
      },
      close: async () => {
        await embedder?.dispose();
        await tokens?.dispose();
      },
    };
  } catch (error) {
    await embedder?.dispose();
    await tokens?.dispose();
    throw error;
  }
}

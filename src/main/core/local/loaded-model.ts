/** Loading a GGUF and its context, and the shapes the engine keeps of them. */
import { stat } from 'node:fs/promises';
import {
  type ChatWrapper,
  InsufficientMemoryError,
  type LlamaChat,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaModel,
  type Token,
} from 'node-llama-cpp';
import { chatWrapperFor } from './chat-format.js';
import { NATIVE_LOAD_DEADLINE_MS, withDeadline } from './deadline.js';
import { errorMessage, LocalEngineError } from './errors.js';
import { inspectModelFile, type ModelFileFacts } from './gguf-check.js';
import type { PrefixModelIdentity } from './prefix-store.js';
import type { LocalRuntime } from './runtime.js';

export interface LoadedModelInfo {
  file: ModelFileFacts;
  contextSize: number;
  threads: number;
  gpu: LocalRuntime['gpu'];
  gpuLayers: number;
}

/** A conversation's context sequence: its KV cache survives between turns. */
export interface Conversation {
  chat: LlamaChat;
  sequence: LlamaContextSequence;
  lastUsed: number;
  /** Turns of one conversation run one after another. */
  queue: Promise<unknown>;
  loaded: Loaded;
  /** The fixed prefix its first turn started from: kept in the sequence when it closes. */
  prefix?: Token[];
  /** A turn is evaluating in its sequence: it cannot be copied from now. */
  busy: boolean;
}

export interface Loaded {
  model: LlamaModel;
  context: LlamaContext;
  /** The model's chat format, picked once per load. */
  wrapper: ChatWrapper;
  info: LoadedModelInfo;
  /** What an evaluated state of this model and context depends on. */
  identity: PrefixModelIdentity;
  /**
   * Sequences no conversation holds, each empty or holding only a fixed prefix: a new
   * conversation takes one and node-llama-cpp's prefix reuse skips what it holds.
   */
  idle: LlamaContextSequence[];
  /** The prefix evaluated (or restored) in the background after the load. */
  warming: Promise<void>;
  /** Prefix tokens by system text and tools, so each is rendered once. */
  prefixes: Map<string, Token[]>;
}

const DEFAULT_MAX_CONTEXT = 8192;
const MIN_CONTEXT = 512;

/** What a load reads from the engine's options. */
export interface LoadOptions {
  contextSize?: number;
  maxConversations?: number;
  loadDeadlineMs?: number;
}

/**
 * Loads the GGUF at `modelPath` (checked first) and a context sized to the free memory, each
 * native step under the load deadline.
 */
export async function loadModel(
  modelPath: string,
  runtimeInfo: () => Promise<LocalRuntime>,
  options: LoadOptions,
): Promise<Loaded> {
  const loadDeadlineMs = options.loadDeadlineMs ?? NATIVE_LOAD_DEADLINE_MS;
  const file = await inspectModelFile(modelPath);
  const runtime = await runtimeInfo();
  let model: LlamaModel;
  try {
    // gpuLayers 'auto' offloads as many layers as fit in free VRAM (none on CPU-only).
    model = await withDeadline(
      runtime.llama.loadModel({ modelPath: file.path, gpuLayers: 'auto' }),
      loadDeadlineMs,
      `Loading ${file.path}`,
      (late) => late.dispose(),
    );
  } catch (error) {
    throw loadError(error, file.path);
  }
  const maxContext = Math.max(
    MIN_CONTEXT,
    Math.min(options.contextSize ?? DEFAULT_MAX_CONTEXT, model.trainContextSize),
  );
  let context: LlamaContext;
  try {
    // {min, max}: node-llama-cpp picks the largest size the free memory allows.
    context = await withDeadline(
      model.createContext({
        contextSize: { min: Math.min(MIN_CONTEXT, maxContext), max: maxContext },
        sequences: options.maxConversations ?? 4,
        threads: runtime.threads,
      }),
      loadDeadlineMs,
      `Creating a context for ${file.path}`,
      (late) => late.dispose(),
    );
  } catch (error) {
    await model.dispose();
    throw loadError(error, file.path);
  }
  const facts = await stat(file.path);
  const identity: PrefixModelIdentity = {
    model: { path: file.path, bytes: facts.size, mtimeMs: facts.mtimeMs },
    context: {
      contextSize: context.contextSize,
      // llama.cpp refuses a sequence's state from a context with another number of them.
      sequences: context.totalSequences,
      batchSize: context.batchSize,
      flashAttention: String(context.flashAttention),
      gpu: String(runtime.gpu),
      llamaCpp: runtime.llama.llamaCppRelease.release,
    },
  };
  return {
    model,
    context,
    wrapper: chatWrapperFor(model),
    identity,
    idle: [],
    warming: Promise.resolve(),
    prefixes: new Map(),
    info: {
      file,
      contextSize: context.contextSize,
      threads: runtime.threads,
      gpu: runtime.gpu,
      gpuLayers: model.gpuLayers,
    },
  };
}

function loadError(error: unknown, file: string): LocalEngineError {
  if (error instanceof LocalEngineError) return error;
  if (error instanceof InsufficientMemoryError || /memory|alloc/i.test(errorMessage(error))) {
    return new LocalEngineError(
      'insufficient_memory',
      `Not enough free memory to load ${file}: ${errorMessage(error)}. ` +
        'Pick a smaller model (pincer models list shows the RAM each needs).',
      { cause: error },
    );
  }
  return new LocalEngineError('invalid_model', `Could not load ${file}: ${errorMessage(error)}`, {
    cause: error,
  });
}

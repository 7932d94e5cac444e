/**
 * The endpoint's backend on the bundled engine: one loaded GGUF, shared by every request. Chat
 * requests go to a few conversation slots (one KV cache each); a request lands on the slot
 * whose last exchange is the longest prefix of its messages, so a client that resends the
 * whole history each turn evaluates only the new tokens. Given the installed chat models, a
 * request naming another one swaps it in (one chat model in memory at a time, as Ollama does).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { GenerateResult, LocalEngine, LocalMessage } from '../local/index.js';
import { inspectModelFile, LocalEmbedder } from '../local/index.js';
import type {
  ChatGeneration,
  CompletionGeneration,
  Embeddings,
  ModelBackend,
  ServedModel,
} from './backend.js';
import { ApiError, modelNotFound } from './errors.js';

/** What the backend uses of an engine: the app hands in its own, shared and fairly scheduled. */
export type BackendEngine = Pick<
  LocalEngine,
  'modelPath' | 'loaded' | 'load' | 'generate' | 'complete'
> &
  Partial<Pick<LocalEngine, 'useModel'>>;

export interface LocalBackendOptions {
  engine: BackendEngine;
  /**
   * The installed chat GGUFs a request may name besides the engine's own; one named is loaded
   * on demand in its place (the engine needs `useModel`). Left out, only the engine's model is
   * served: the app's endpoint follows the app's model and never switches it from outside.
   */
  installedChatModels?: () => Promise<string[]>;
  /** Chat slots; the engine needs `slots + 1` conversations (one more for raw completions). */
  slots?: number;
  /** A GGUF embedding model for /v1/embeddings, opened on first use. */
  embeddingModelPath?: string;
  threads?: number;
}

interface Slot {
  id: string;
  /** The prompt prefix and messages of its last exchange, reply included, one key each. */
  keys: string[];
  lastUsed: number;
}

const COMPLETION_CONVERSATION = 'openai-completions';

interface HeaderFacts {
  /** size:mtime of the file when read: a replaced file is read again. */
  stamp: string;
  /** False when the header failed the check: the file is never offered. */
  sound: boolean;
  contextLength?: number;
}

/** A GGUF's model id: its file name without `.gguf`. */
export function modelIdOf(file: string): string {
  return path.basename(file).replace(/\.gguf$/i, '');
}

export class LocalBackend implements ModelBackend {
  /** The chat model in the engine now (it changes when a request loads another one). */
  chatModel: string;
  readonly embeddingModel?: string;
  private readonly slots: Slot[];
  private ready = false;
  /** Requests generating on the current chat model; a swap waits until none are. */
  private active = 0;
  private drained?: () => void;
  private switching?: Promise<void>;
  private readonly headers = new Map<string, HeaderFacts>();
  /** The model the engine came with (--model-path may name a file outside the folders). */
  private readonly startModel: string;
  private embedder?: Promise<LocalEmbedder>;
  private embeddingContext?: Promise<number | undefined>;
  private clock = 0;

  constructor(private readonly options: LocalBackendOptions) {
    this.chatModel = modelIdOf(options.engine.modelPath);
    this.startModel = options.engine.modelPath;
    this.embeddingModel = options.embeddingModelPath
      ? modelIdOf(options.embeddingModelPath)
      : undefined;
    this.slots = Array.from({ length: Math.max(1, options.slots ?? 2) }, (_, index) => ({
      id: `openai-chat-${index}`,
      keys: [],
      lastUsed: 0,
    }));
    if (options.engine.loaded) this.ready = true;
    if (options.installedChatModels && !options.engine.useModel)
      throw new Error('Serving installed models on demand needs an engine that can switch models');
  }

  /** Loads the chat model; until it resolves, status() says `loading`. */
  async load(): Promise<void> {
    await this.options.engine.load();
    this.ready = true;
  }

  status(): 'ready' | 'loading' {
    return this.ready ? 'ready' : 'loading';
  }

  async models(): Promise<ServedModel[]> {
    const engine = this.options.engine;
    const current = this.chatModel;
    // While a model loads its header speaks for it: awaiting the load would hold up the 503.
    const chat: ServedModel = {
      id: current,
      kind: 'chat',
      contextLength:
        this.ready && engine.loaded
          ? (await engine.load()).contextSize
          : await this.headerContext(engine.modelPath),
    };
    const out = [chat];
    for (const [id, file] of await this.otherChatModels()) {
      if (id === current) continue;
      out.push({ id, kind: 'chat', contextLength: await this.headerContext(file) });
    }
    const file = this.options.embeddingModelPath;
    if (file && this.embeddingModel) {
      // Every request checks the model list: read the embedding model's header once.
      this.embeddingContext ??= inspectModelFile(file).then((facts) => facts.trainContextSize);
      const opened = await this.embedder?.catch(() => undefined);
      out.push({
        id: this.embeddingModel,
        kind: 'embedding',
        contextLength: await this.embeddingContext,
        dimensions: opened?.dimensions,
      });
    }
    return out;
  }

  async chat(model: string, request: ChatGeneration): Promise<GenerateResult> {
    const release = await this.acquire(model, request.signal);
    try {
      return await this.chatOnCurrent(request);
    } finally {
      release();
    }
  }

  private async chatOnCurrent(request: ChatGeneration): Promise<GenerateResult> {
    const keys = promptKeys(request);
    const slot = this.pickSlot(keys);
    slot.lastUsed = ++this.clock;
    const result = await this.options.engine.generate(slot.id, request);
    const reply: LocalMessage = {
      role: 'assistant',
      text: result.text,
      toolCalls: result.toolCalls.length ? result.toolCalls : undefined,
    };
    slot.keys = [...keys, JSON.stringify(reply)];
    return result;
  }

  async complete(model: string, request: CompletionGeneration): Promise<GenerateResult> {
    const release = await this.acquire(model, request.signal);
    try {
      return await this.options.engine.complete(COMPLETION_CONVERSATION, request);
    } finally {
      release();
    }
  }

  /**
   * Waits until `model` is the engine's model, swapping it in if it is another installed one:
   * the swap waits for the requests running on the current model, then unloads it and loads the
   * named one (status() says `loading` meanwhile, so new requests get 503). Resolves with the
   * release to call when the request is done.
   */
  private async acquire(model: string, signal?: AbortSignal): Promise<() => void> {
    for (;;) {
      // A client that left while a swap was under way must not start another one.
      if (signal?.aborted) throw clientClosed();
      if (this.switching) {
        await this.switching.catch(() => undefined);
        continue;
      }
      if (model === this.chatModel) break;
      const file = this.options.installedChatModels
        ? (await this.otherChatModels()).get(model)
        : undefined;
      if (!file) throw modelNotFound(model);
      // Another request may have started a swap while the folders were read.
      if (this.switching || model === this.chatModel) continue;
      const swap = this.swapTo(model, file);
      this.switching = swap;
      swap
        .finally(() => {
          if (this.switching === swap) this.switching = undefined;
        })
        .catch(() => undefined);
      await swap;
    }
    this.active++;
    return () => {
      this.active--;
      if (this.active === 0) this.drained?.();
    };
  }

  private async swapTo(model: string, file: string): Promise<void> {
    if (this.active > 0) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
      });
      this.drained = undefined;
    }
    const engine = this.options.engine;
    const previous = engine.modelPath;
    const switchTo = engine.useModel?.bind(engine);
    if (!switchTo) throw modelNotFound(model);
    this.ready = false;
    try {
      await switchTo(file);
      // The slots' prompt prefixes were the old model's KV cache, gone with it.
      for (const slot of this.slots) slot.keys = [];
      await engine.load();
      this.chatModel = model;
    } catch (error) {
      // The previous model comes back on the next request (loaded lazily by the engine).
      await switchTo(previous).catch(() => undefined);
      this.chatModel = modelIdOf(previous);
      throw error;
    } finally {
      this.ready = true;
    }
  }

  /** Installed chat models by id (the first file of an id wins, as in resolveChatModel). */
  private async otherChatModels(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const installed = this.options.installedChatModels;
    // The starting model stays on offer after a swap, wherever its file lies.
    const files = installed ? [this.startModel, ...(await installed())] : [];
    for (const file of files) {
      const id = modelIdOf(file);
      if (out.has(id) || file === this.options.embeddingModelPath) continue;
      // A file whose header fails the check is never offered, so never loaded.
      if (!(await this.headerFacts(file))?.sound) continue;
      out.set(id, file);
    }
    return out;
  }

  private async headerContext(file: string): Promise<number | undefined> {
    return (await this.headerFacts(file))?.contextLength;
  }

  /** The checked header of a GGUF, read once while the file is unchanged (headers run to MBs). */
  private async headerFacts(file: string): Promise<HeaderFacts | undefined> {
    const info = await stat(file).catch(() => undefined);
    if (!info) return undefined;
    const stamp = `${info.size}:${info.mtimeMs}`;
    const cached = this.headers.get(file);
    if (cached?.stamp === stamp) return cached;
    const facts = await inspectModelFile(file).then(
      (read): HeaderFacts => ({ stamp, sound: true, contextLength: read.trainContextSize }),
      (): HeaderFacts => ({ stamp, sound: false }),
    );
    this.headers.set(file, facts);
    return facts;
  }

  async embed(model: string, texts: string[]): Promise<Embeddings> {
    const file = this.options.embeddingModelPath;
    if (!file || model !== this.embeddingModel) throw modelNotFound(model);
    if (!this.embedder) {
      const opening = LocalEmbedder.open({
        modelPath: file,
        runtime: { threads: this.options.threads },
      });
      // A failed open is retried by the next request rather than cached.
      opening.catch(() => {
        if (this.embedder === opening) this.embedder = undefined;
      });
      this.embedder = opening;
    }
    const embedder = await this.embedder;
    const vectors = await embedder.embed(texts);
    const promptTokens = texts.reduce((sum, text) => sum + embedder.countTokens(text), 0);
    return { vectors, promptTokens };
  }

  async close(): Promise<void> {
    const embedder = await this.embedder?.catch(() => undefined);
    await embedder?.dispose();
  }

  /** The slot sharing the longest message prefix; else the least recently used one. */
  private pickSlot(keys: string[]): Slot {
    const score = (slot: Slot) => sharedPrefix(slot.keys, keys);
    return this.slots.reduce((best, slot) => {
      const [a, b] = [score(slot), score(best)];
      return a > b || (a === b && slot.lastUsed < best.lastUsed) ? slot : best;
    });
  }
}

const clientClosed = () =>
  new ApiError(499, 'invalid_request_error', 'client_closed', 'The client left');

/** What comes before the messages (system prompt and tools), then one key per message. */
function promptKeys(request: ChatGeneration): string[] {
  const tools = request.toolChoice === 'none' ? [] : (request.tools ?? []);
  return [
    JSON.stringify({ system: request.system ?? '', tools }),
    ...request.messages.map((message) => JSON.stringify(message)),
  ];
}

function sharedPrefix(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

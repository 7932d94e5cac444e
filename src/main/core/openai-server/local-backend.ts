/**
 * The endpoint's backend on the bundled engine: one loaded GGUF, shared by every request. Chat
 * requests go to a few conversation slots (one KV cache each); a request lands on the slot
 * whose last exchange is the longest prefix of its messages, so a client that resends the
 * whole history each turn evaluates only the new tokens.
 */
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
import { modelNotFound } from './errors.js';

/** What the backend uses of an engine: the app hands in its own, shared and fairly scheduled. */
export type BackendEngine = Pick<
  LocalEngine,
  'modelPath' | 'loaded' | 'load' | 'generate' | 'complete'
>;

export interface LocalBackendOptions {
  engine: BackendEngine;
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

/** A GGUF's model id: its file name without `.gguf`. */
export function modelIdOf(file: string): string {
  return path.basename(file).replace(/\.gguf$/i, '');
}

export class LocalBackend implements ModelBackend {
  readonly chatModel: string;
  readonly embeddingModel?: string;
  private readonly slots: Slot[];
  private ready = false;
  private embedder?: Promise<LocalEmbedder>;
  private embeddingContext?: Promise<number | undefined>;
  private clock = 0;

  constructor(private readonly options: LocalBackendOptions) {
    this.chatModel = modelIdOf(options.engine.modelPath);
    this.embeddingModel = options.embeddingModelPath
      ? modelIdOf(options.embeddingModelPath)
      : undefined;
    this.slots = Array.from({ length: Math.max(1, options.slots ?? 2) }, (_, index) => ({
      id: `openai-chat-${index}`,
      keys: [],
      lastUsed: 0,
    }));
    if (options.engine.loaded) this.ready = true;
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
    const chat: ServedModel = {
      id: this.chatModel,
      kind: 'chat',
      contextLength: engine.loaded
        ? (await engine.load()).contextSize
        : (await inspectModelFile(engine.modelPath)).trainContextSize,
    };
    const out = [chat];
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
    if (model !== this.chatModel) throw modelNotFound(model);
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
    if (model !== this.chatModel) throw modelNotFound(model);
    return this.options.engine.complete(COMPLETION_CONVERSATION, request);
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

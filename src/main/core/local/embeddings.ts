import type { LlamaEmbeddingContext, LlamaModel } from 'node-llama-cpp';
import { NATIVE_LOAD_DEADLINE_MS, withDeadline } from './deadline.js';
import { errorMessage, LocalEngineError } from './errors.js';
import { inspectModelFile } from './gguf-check.js';
import { type LocalRuntime, loadRuntime, type RuntimeOptions } from './runtime.js';

/** What memory search needs from any embedding source, local or cloud. */
export interface EmbeddingProvider {
  readonly id: string;
  /** Length of every vector `embed` returns. */
  readonly dimensions: number;
  /** One vector per text, in order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

export interface LocalEmbedderOptions {
  modelPath: string;
  runtime?: RuntimeOptions;
  /** Longest text in tokens; longer inputs are rejected rather than silently cut. */
  contextSize?: number;
}

/**
 * An embedding model that loads on its first `embed`: its id and vector length come from the
 * GGUF header, so memory and skills can open (and a text turn with nothing to search can run)
 * without loading the model or node-llama-cpp.
 */
export async function lazyLocalEmbedder(options: LocalEmbedderOptions): Promise<EmbeddingProvider> {
  const file = await inspectModelFile(options.modelPath);
  const dimensions = file.embeddingLength;
  if (!dimensions) {
    // No width in the header: load now to learn it.
    return LocalEmbedder.open(options);
  }
  let opening: Promise<LocalEmbedder> | undefined;
  const open = () => {
    opening ??= LocalEmbedder.open(options).then(
      (embedder) => {
        if (embedder.dimensions === dimensions) return embedder;
        return embedder.dispose().then(() => {
          throw new LocalEngineError(
            'invalid_model',
            `${file.path} makes ${embedder.dimensions}-wide vectors, its header says ${dimensions}`,
          );
        });
      },
      (error: unknown) => {
        opening = undefined;
        throw error;
      },
    );
    return opening;
  };
  return {
    id: embedderId(file),
    dimensions,
    embed: async (texts) => (await open()).embed(texts),
    dispose: async () => {
      const loaded = await opening?.catch(() => undefined);
      opening = undefined;
      await loaded?.dispose();
    },
  };
}

function embedderId(file: { name?: string; path: string }): string {
  return `local:${file.name ?? file.path}`;
}

/** Embeddings from a GGUF model through node-llama-cpp's embedding context. */
export class LocalEmbedder implements EmbeddingProvider {
  private constructor(
    readonly id: string,
    private readonly runtime: LocalRuntime,
    private readonly model: LlamaModel,
    private readonly context: LlamaEmbeddingContext,
  ) {}

  static async open(options: LocalEmbedderOptions): Promise<LocalEmbedder> {
    const file = await inspectModelFile(options.modelPath);
    const runtime = await loadRuntime(options.runtime);
    try {
      const model = await withDeadline(
        runtime.llama.loadModel({ modelPath: file.path }),
        NATIVE_LOAD_DEADLINE_MS,
        `Loading ${file.path}`,
        (late) => late.dispose(),
      );
      const context = await withDeadline(
        model.createEmbeddingContext({
          contextSize: Math.min(options.contextSize ?? 2048, model.trainContextSize),
          threads: runtime.threads,
        }),
        NATIVE_LOAD_DEADLINE_MS,
        `Creating an embedding context for ${file.path}`,
        (late) => late.dispose(),
      ).catch(async (error: unknown) => {
        await model.dispose();
        throw error;
      });
      return new LocalEmbedder(embedderId(file), runtime, model, context);
    } catch (error) {
      await runtime.llama.dispose();
      if (error instanceof LocalEngineError) throw error;
      throw new LocalEngineError(
        'invalid_model',
        `Could not open ${file.path} for embeddings: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  get dimensions(): number {
    return this.model.embeddingVectorSize;
  }

  /** Tokens `text` takes in this model (what an embedding request is billed by). */
  countTokens(text: string): number {
    return this.model.tokenize(text).length;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    // One at a time: the embedding context holds one sequence.
    for (const text of texts) {
      const embedding = await this.context.getEmbeddingFor(text);
      vectors.push(Float32Array.from(embedding.vector));
    }
    return vectors;
  }

  async dispose(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
    await this.runtime.llama.dispose();
  }
}

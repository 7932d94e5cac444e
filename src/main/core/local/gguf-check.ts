import { withDeadline } from './deadline.js';
import { errorMessage, LocalEngineError } from './errors.js';
import { GgufHeaderError, type GgufScalar, readGgufHeader } from './gguf-header.js';

export interface ModelFileFacts {
  path: string;
  bytes: number;
  architecture: string;
  name?: string;
  trainContextSize?: number;
  /** Width of the model's hidden state: an embedding model's vector length. */
  embeddingLength?: number;
  chatTemplate?: string;
  /**
   * Bytes the context's KV cache takes per token at llama.cpp's default 16-bit cache, from the
   * header's layer and attention sizes; undefined where the header lacks them.
   */
  kvBytesPerToken?: number;
}

/** The header walk is bounded in bytes; this only catches a file system that stops answering. */
const HEADER_DEADLINE_MS = 60_000;

/**
 * Checks a GGUF file with the bounded header reader (counts, lengths and every tensor against
 * the file's size) before any native code or node-llama-cpp's parser sees it, so a hostile or
 * truncated file is a clear error, never a hang inside llama.cpp.
 */
export async function inspectModelFile(file: string): Promise<ModelFileFacts> {
  const header = await withDeadline(
    readGgufHeader(file),
    HEADER_DEADLINE_MS,
    `Reading the header of ${file}`,
  ).catch((error: unknown) => {
    throw modelFileError(file, error);
  });
  const meta = header.metadata;
  const architecture = text(meta.get('general.architecture')) ?? 'unknown';
  const context = meta.get(`${architecture}.context_length`);
  const embedding = meta.get(`${architecture}.embedding_length`);
  return {
    path: file,
    bytes: header.fileBytes,
    architecture,
    name: text(meta.get('general.name')),
    trainContextSize: typeof context === 'number' ? context : undefined,
    embeddingLength: typeof embedding === 'number' ? embedding : undefined,
    chatTemplate: text(meta.get('tokenizer.chat_template')),
    kvBytesPerToken: kvBytesPerToken(meta, architecture),
  };
}

/** 2 bytes per value, a key and a value per KV head and layer (GQA: fewer KV heads than heads). */
function kvBytesPerToken(
  meta: ReadonlyMap<string, GgufScalar>,
  architecture: string,
): number | undefined {
  const num = (key: string) => {
    const value = meta.get(`${architecture}.${key}`);
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
  };
  const layers = num('block_count');
  const embedding = num('embedding_length');
  const heads = num('attention.head_count');
  if (!layers || !embedding || !heads) return undefined;
  const kvHeads = num('attention.head_count_kv') ?? heads;
  const keyLength = num('attention.key_length') ?? embedding / heads;
  const valueLength = num('attention.value_length') ?? embedding / heads;
  return Math.round(layers * kvHeads * (keyLength + valueLength) * 2);
}

/** The reason a file is not a usable model, or undefined when its header is sound. */
export async function modelFileProblem(file: string): Promise<string | undefined> {
  return inspectModelFile(file).then(
    () => undefined,
    (error: unknown) => errorMessage(error),
  );
}

function modelFileError(file: string, error: unknown): LocalEngineError {
  if (error instanceof LocalEngineError) return error;
  if (error instanceof GgufHeaderError) {
    if (error.kind === 'not_file') {
      return new LocalEngineError('model_not_found', `No model file at ${file} (${error.reason})`);
    }
    if (error.kind === 'truncated') {
      return new LocalEngineError(
        'truncated_model',
        `${file} is cut short: ${error.reason}. ` +
          'Download it again (pincer models pull NAME resumes a partial download).',
        { cause: error },
      );
    }
    return new LocalEngineError('invalid_model', `${file}: ${error.reason}`, { cause: error });
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') {
    return new LocalEngineError(
      'model_not_found',
      `No model file at ${file} (${errorMessage(error)})`,
      { cause: error },
    );
  }
  return new LocalEngineError('invalid_model', `${file} cannot be read: ${errorMessage(error)}`, {
    cause: error,
  });
}

function text(value: GgufScalar | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

import { stat } from 'node:fs/promises';
import { type GgufFileInfo, readGgufFileInfo } from 'node-llama-cpp';
import { errorMessage, LocalEngineError } from './errors.js';

export interface ModelFileFacts {
  path: string;
  bytes: number;
  architecture: string;
  name?: string;
  trainContextSize?: number;
  chatTemplate?: string;
}

const BIG_KEYS = [
  'tokenizer.ggml.tokens',
  'tokenizer.ggml.scores',
  'tokenizer.ggml.token_type',
  'tokenizer.ggml.merges',
];

// Bytes per block and weights per block of the ggml types GGUF models commonly use.
const GGML_BLOCKS: Record<number, [bytes: number, weights: number]> = {
  0: [4, 1], // F32
  1: [2, 1], // F16
  2: [18, 32], // Q4_0
  3: [20, 32], // Q4_1
  6: [22, 32], // Q5_0
  7: [24, 32], // Q5_1
  8: [34, 32], // Q8_0
  10: [84, 256], // Q2_K
  11: [110, 256], // Q3_K
  12: [144, 256], // Q4_K
  13: [176, 256], // Q5_K
  14: [210, 256], // Q6_K
  30: [2, 1], // BF16
};

/**
 * Reads a GGUF file's header and checks that every tensor it declares lies inside the file,
 * so a truncated download is a clear error rather than a failure deep inside llama.cpp.
 */
export async function inspectModelFile(file: string): Promise<ModelFileFacts> {
  let bytes: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a regular file');
    bytes = info.size;
  } catch (error) {
    throw new LocalEngineError(
      'model_not_found',
      `No model file at ${file} (${errorMessage(error)})`,
    );
  }
  let info: GgufFileInfo;
  try {
    info = await readGgufFileInfo(file, {
      readTensorInfo: true,
      sourceType: 'filesystem',
      logWarnings: false,
      // The vocabulary is the bulk of the header and is not needed here.
      ignoreKeys: BIG_KEYS,
    });
  } catch (error) {
    const truncated = /end of file|out of range|offset/i.test(errorMessage(error));
    throw new LocalEngineError(
      truncated ? 'truncated_model' : 'invalid_model',
      truncated
        ? `${file} is cut short: its GGUF header is incomplete (${errorMessage(error)})`
        : `${file} is not a GGUF model: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  const needed = Math.max(0, ...(info.fullTensorInfo ?? []).map(tensorEnd));
  if (needed > bytes) {
    throw new LocalEngineError(
      'truncated_model',
      `${file} is cut short: it has ${bytes} bytes but its tensors need ${needed}. ` +
        'Download it again (pincer models pull NAME resumes a partial download).',
    );
  }
  const metadata = info.metadata;
  const architecture = String(metadata.general?.architecture ?? 'unknown');
  const archMeta = (metadata as Record<string, unknown>)[architecture] as
    | { context_length?: number }
    | undefined;
  return {
    path: file,
    bytes,
    architecture,
    name: metadata.general?.name,
    trainContextSize: archMeta?.context_length,
    chatTemplate: metadata.tokenizer?.chat_template,
  };
}

function tensorEnd(tensor: NonNullable<GgufFileInfo['fullTensorInfo']>[number]): number {
  const start = Number(tensor.fileOffset);
  const block = GGML_BLOCKS[tensor.ggmlType];
  if (!block) return start; // an exotic type: at least its start must be in the file
  const count = tensor.dimensions.reduce<number>((a, b) => a * Number(b), 1);
  return start + Math.ceil(count / block[1]) * block[0];
}

/**
 * Token counts from a local model's own tokenizer: the GGUF is opened vocabulary-only (no
 * weights, a few MB of memory), so the context builder measures sections in the units the
 * model's window is counted in.
 */
import {
  inspectModelFile,
  loadRuntime,
  NATIVE_LOAD_DEADLINE_MS,
  withDeadline,
} from '../local/index.js';

export interface TokenCounter {
  count(text: string): number;
  dispose(): Promise<void>;
}

export async function localTokenCounter(modelPath: string): Promise<TokenCounter> {
  // The bounded header check first: node-llama-cpp's own parser trusts the file's counts.
  await inspectModelFile(modelPath);
  const runtime = await loadRuntime({ gpu: false });
  try {
    const model = await withDeadline(
      runtime.llama.loadModel({ modelPath, vocabOnly: true }),
      NATIVE_LOAD_DEADLINE_MS,
      `Loading the vocabulary of ${modelPath}`,
      (late) => late.dispose(),
    );
    return {
      count: (text) => model.tokenize(text).length,
      dispose: async () => {
        await model.dispose();
        await runtime.llama.dispose();
      },
    };
  } catch (error) {
    await runtime.llama.dispose();
    throw error;
  }
}

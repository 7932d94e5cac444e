/**
 * Token counts from a local model's own tokenizer: the GGUF is opened vocabulary-only (no
 * weights, a few MB of memory), so the context builder measures sections in the units the
 * model's window is counted in.
 */
import { loadRuntime } from '../local/runtime.js';

export interface TokenCounter {
  count(text: string): number;
  dispose(): Promise<void>;
}

export async function localTokenCounter(modelPath: string): Promise<TokenCounter> {
  const runtime = await loadRuntime({ gpu: false });
  try {
    const model = await runtime.llama.loadModel({ modelPath, vocabOnly: true });
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

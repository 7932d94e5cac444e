import os from 'node:os';
import type { Llama } from 'node-llama-cpp';

export type GpuChoice = 'auto' | false | 'cuda' | 'vulkan' | 'metal';

export interface RuntimeOptions {
  /** `auto` (default) offloads to CUDA/Metal/Vulkan when node-llama-cpp finds one, else CPU. */
  gpu?: GpuChoice;
  /** CPU threads for evaluation; defaults to every core this process may use. */
  threads?: number;
}

export interface LocalRuntime {
  llama: Llama;
  threads: number;
  /** The backend in use: `cuda`, `metal`, `vulkan`, or false for CPU only. */
  gpu: Llama['gpu'];
}

/**
 * Threads are always explicit: node-llama-cpp's own default made generation 20-800x slower on
 * a loaded 2-core machine. All available cores is the llama.cpp recommendation for CPU work.
 */
export function defaultThreads(): number {
  return Math.max(1, os.availableParallelism());
}

/** Loads the llama.cpp binding once per options; never builds from source at run time. */
export async function loadRuntime(options: RuntimeOptions = {}): Promise<LocalRuntime> {
  const threads = options.threads ?? defaultThreads();
  // Imported here, not at the top: a command or turn that never runs the local model never
  // loads node-llama-cpp (hundreds of modules).
  const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
  const base = {
    build: 'never',
    maxThreads: threads,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
  } as const;
  let llama: Llama;
  try {
    llama = await getLlama({ ...base, gpu: options.gpu ?? 'auto' });
  } catch (error) {
    // A GPU binary that is absent or fails to start must not stop local chat: fall back to CPU.
    if (options.gpu === false) throw error;
    llama = await getLlama({ ...base, gpu: false });
  }
  return { llama, threads, gpu: llama.gpu };
}

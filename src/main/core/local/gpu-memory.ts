import type { GpuMemory } from '../../../shared/gpu-fit.js';
import { loadRuntime } from './runtime.js';

export type { GpuMemory };

/**
 * This computer's GPU memory as llama.cpp sees it, or null where it runs on the processor only
 * (no GPU, or no working GPU binary: the engine then falls back to the CPU too). It loads the
 * binding, so it is asked for lazily (the first-run screen, `pincer models list`), never at
 * start-up; the instance is released afterwards.
 */
export async function probeGpuMemory(): Promise<GpuMemory | null> {
  try {
    const { llama, gpu } = await loadRuntime({ gpu: 'auto', threads: 1 });
    try {
      if (gpu === false) return null;
      const vram = await llama.getVramState();
      return {
        backend: gpu,
        devices: await llama.getGpuDeviceNames(),
        totalBytes: vram.total,
        freeBytes: vram.free,
        unified: vram.unifiedSize > 0,
      };
    } finally {
      await llama.dispose();
    }
  } catch {
    return null;
  }
}

/**
 * Where a local model of a given size would run on this computer, told before it is downloaded:
 * wholly in GPU memory, split between GPU and RAM (llama.cpp offloads the layers that fit), or
 * on the processor. The model's `ramBytes` (weights plus a default context) is compared with the
 * GPU's free memory less a tenth kept for the desktop's own use of the GPU.
 */

import { z } from 'zod';
import { formatBytes } from './format.js';

export const GpuMemorySchema = z.object({
  /** node-llama-cpp's backend: `cuda`, `vulkan` or `metal`. */
  backend: z.string(),
  devices: z.array(z.string()),
  totalBytes: z.number().nonnegative(),
  freeBytes: z.number().nonnegative(),
  /** Memory shared with the CPU (Apple silicon): the model then weighs on RAM too. */
  unified: z.boolean(),
});
export type GpuMemory = z.infer<typeof GpuMemorySchema>;

export type Placement = 'gpu' | 'split' | 'cpu';

export function placementOf(ramBytes: number, gpu: GpuMemory | null): Placement {
  if (!gpu || gpu.freeBytes <= 0) return 'cpu';
  return ramBytes <= gpu.freeBytes * 0.9 ? 'gpu' : 'split';
}

/** The fit in words, for the first-run screen, Settings → Models and `pincer models list`. */
export function placementText(ramBytes: number, gpu: GpuMemory | null): string {
  const name = gpu?.devices[0] ?? gpu?.backend ?? '';
  switch (placementOf(ramBytes, gpu)) {
    case 'cpu':
      return gpu
        ? `runs on the processor (${name} has no memory free)`
        : 'runs on the processor (no supported GPU found)';
    case 'gpu':
      return `fits in GPU memory (${name}: ${formatBytes(gpu?.freeBytes ?? 0)} free)`;
    case 'split':
      return `partly on the GPU (${name}: ${formatBytes(gpu?.freeBytes ?? 0)} free), the rest on the processor: slower`;
  }
}

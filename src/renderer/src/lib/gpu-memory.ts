/** This computer's GPU memory, asked once per view that shows a model's fit. */
import { useEffect, useState } from 'react';
import type { GpuMemory } from '../../../shared/gpu-fit';
import { useBridge } from './bridge-context';

/** undefined while the core looks (it loads llama.cpp the first time), then the answer. */
export function useGpuMemory(): GpuMemory | null | undefined {
  const bridge = useBridge();
  const [gpu, setGpu] = useState<GpuMemory | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    // A failed probe says nothing about the GPU: the line stays away rather than claim "none".
    bridge
      .invoke('models.gpu', {})
      .then((found) => live && setGpu(found))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [bridge]);
  return gpu;
}
